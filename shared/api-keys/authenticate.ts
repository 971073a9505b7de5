// Who is calling: reads the bearer key, finds it and its workspace (cached per instance), and applies the checks in contract order.
import { ExpiringCache } from '#platform/caches.ts';
import { ApiError } from '#platform/errors.ts';
import { appendLogKeys, logger } from '#platform/observability.ts';
import { checkFeatureEnabled, checkWorkspaceActive } from '#shared/workspaces/admission.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import type { Feature, Workspace } from '#shared/workspaces/schema.ts';
import { findApiKey, hashApiKey } from './repository.ts';
import { type ApiKeyRecord, type KeyFamily, keyFamilies, type Person, type Scope } from './schema.ts';

/** What a route asks of its caller's key; the route table gives one per route, and this module checks it. */
export interface RouteAuth {
  /** Keys of any other family are answered 401. */
  readonly family: KeyFamily;
  /** The key needs at least one of these scopes (pw_ keys carry none, so leave this empty for them). */
  readonly scopes: readonly Scope[];
  /** The workspace must have this feature on. */
  readonly feature?: Feature;
  /**
   * A scope that grants the route only while the workspace has this feature on: a key passes if any of its scopes
   * that the route lists still grants it.
   */
  readonly featureOfScope?: Partial<Record<Scope, Feature>>;
}

export interface Principal {
  readonly keyId: string;
  /** pw_test keys act in the sandbox: they read the same data, and what they approve is published nowhere. */
  readonly family: KeyFamily;
  readonly workspaceId: string;
  readonly scopes: readonly Scope[];
  /** The connector a connector-scope key belongs to. */
  readonly connectorId: string | undefined;
  readonly workspace: Workspace;
  /** Who made the key: it acts for that person where a person counts (a second approval). */
  readonly createdBy?: Person;
}

const KEY_PATTERN = new RegExp(`^(${keyFamilies.join('|')})_[0-9A-Za-z]{32,128}$`);

function unauthorized(message: string): ApiError {
  return new ApiError('unauthorized', message);
}

/** The key from an `Authorization: Bearer …` header, with its family; the key is never put into a message. */
export function readBearerKey(header: string | undefined): { key: string; family: KeyFamily } {
  if (!header) throw unauthorized('Send an API key as "Authorization: Bearer <key>".');
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw unauthorized('The Authorization header must use the Bearer scheme: "Bearer <key>".');
  const key = match[1];
  const family = KEY_PATTERN.exec(key)?.[1] as KeyFamily | undefined;
  if (!family) throw unauthorized('The API key is malformed.');
  return { key, family };
}

const surfaceOfFamily: Record<KeyFamily, string> = { svc_live: '/api/v1', pw_live: '/v1', pw_test: '/v1' };

/** pw_live and pw_test keys both serve the overview surface; svc_live keys serve /api/v1 alone. */
export function checkFamily(auth: RouteAuth, family: KeyFamily): void {
  const fits = auth.family === 'svc_live' ? family === 'svc_live' : family !== 'svc_live';
  if (!fits) throw unauthorized(`A ${family} key works only on ${surfaceOfFamily[family]}.`);
}

/**
 * The checks after the key is found, in the order of the contract: 401 (unknown, revoked, wrong family), 403 scope,
 * 402 workspace not active, 403 feature off. Pure, so that the order is unit-tested.
 */
export function authorize(
  auth: RouteAuth,
  record: ApiKeyRecord | undefined,
  workspace: Workspace | undefined,
  nowMs = Date.now(),
): Principal {
  if (!record || !workspace) throw unauthorized('The API key is not valid.');
  if (record.revokedAt || isPastRevokeAt(record, nowMs)) throw unauthorized('The API key has been revoked.');
  checkFamily(auth, record.family);
  const granting = auth.scopes.filter((scope) => record.scopes.includes(scope));
  if (auth.scopes.length > 0 && granting.length === 0) {
    throw new ApiError('forbidden', `This key lacks the scope this endpoint needs: ${auth.scopes.join(' or ')}.`);
  }
  checkWorkspaceActive(workspace);
  const missing = (feature: Feature | undefined) => feature !== undefined && !workspace.features.includes(feature);
  if (auth.feature) checkFeatureEnabled(workspace, auth.feature);
  const scopeFeatures = granting.map((scope) => auth.featureOfScope?.[scope]);
  if (granting.length > 0 && scopeFeatures.every(missing)) {
    throw new ApiError('feature_not_enabled', `The workspace does not have the ${scopeFeatures[0]} feature.`);
  }
  return {
    keyId: record.keyId,
    family: record.family,
    workspaceId: record.workspaceId,
    scopes: record.scopes,
    connectorId: record.connectorId,
    workspace,
    ...(record.createdBy ? { createdBy: record.createdBy } : {}),
  };
}

/** A key rotated with a grace period stops working when the period ends, whether or not anything revoked it since. */
export function isPastRevokeAt(record: Pick<ApiKeyRecord, 'revokeAt'>, nowMs: number): boolean {
  return record.revokeAt !== undefined && Date.parse(record.revokeAt) <= nowMs;
}

/** The connector a connector-scope route acts for; a key without one cannot use such a route. */
export function connectorOf(principal: Principal): string {
  if (!principal.connectorId) throw new ApiError('forbidden', 'This endpoint needs a connector key.');
  return principal.connectorId;
}

/** A revoked key or a changed workspace takes effect within this time on every instance. */
export const AUTH_CACHE_MS = 60_000;

/**
 * A key that is not found is remembered this long: a client retrying a wrong or deleted key costs one read per
 * instance in this time rather than one per request, and a key tried before it was issued works this long after.
 */
export const AUTH_MISS_CACHE_MS = 5_000;

const keyCache = new ExpiringCache<ApiKeyRecord | undefined>({ ttlMs: AUTH_CACHE_MS, missTtlMs: AUTH_MISS_CACHE_MS, limit: 10_000 });
const workspaceCache = new ExpiringCache<Workspace | undefined>({ ttlMs: AUTH_CACHE_MS });

export async function authenticate(auth: RouteAuth, authorizationHeader: string | undefined, now = Date.now()): Promise<Principal> {
  const { key, family } = readBearerKey(authorizationHeader);
  // The prefix tells the family, so a key for the other surface is turned away without a read.
  checkFamily(auth, family);
  const keyHash = hashApiKey(key);
  const record = await keyCache.get(keyHash, now, () => findApiKey(keyHash));
  const workspace = record ? await workspaceCache.get(record.workspaceId, now, () => getWorkspace(record.workspaceId)) : undefined;
  try {
    return authorize(auth, record, workspace, now);
  } catch (error) {
    if (record && error instanceof ApiError) logRefusedKey(record, error);
    throw error;
  }
}

/**
 * A key the service knows but refuses (revoked, past its grace, the wrong surface, a scope it lacks, its workspace
 * suspended): the request's lines carry its id and workspace, and one warning says why, so that a leaked key's trail
 * goes on after it was revoked (docs/operations.md, "A key leaked"). Never the key itself.
 */
function logRefusedKey(record: ApiKeyRecord, error: ApiError): void {
  appendLogKeys({ workspaceId: record.workspaceId, keyId: record.keyId });
  logger.warn('API key refused', { keyId: record.keyId, workspaceId: record.workspaceId, reason: error.code, detail: error.message });
}

/** For tests that change a key or workspace and must not wait out the cache. */
export function forgetCachedCredentials(): void {
  keyCache.clear();
  workspaceCache.clear();
}
