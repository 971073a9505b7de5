// What a workspace lets its callers do whoever they are (an API key or a console user): nothing while it is inactive, and a feature's work only while the feature is on.
import { ApiError } from '#platform/errors.ts';
import type { Feature, Workspace } from './schema.ts';

/** Refuses all work of an inactive workspace: 402 subscription_inactive. */
export function checkWorkspaceActive(workspace: Pick<Workspace, 'status'>): void {
  if (workspace.status !== 'active') throw new ApiError('subscription_inactive', 'The workspace is not active.');
}

/** Refuses a feature's work while the workspace has the feature off: 403 feature_not_enabled. */
export function checkFeatureEnabled(workspace: Pick<Workspace, 'features'>, feature: Feature): void {
  if (!workspace.features.includes(feature)) {
    throw new ApiError('feature_not_enabled', `The workspace does not have the ${feature} feature.`);
  }
}
