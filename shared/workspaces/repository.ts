// Workspace items in the table: create, read and update the tenant record.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import { cancellationCodes, getItem, putItem, transactWrite, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { type Workspace, WorkspaceSchema, workspaceDefaults } from './schema.ts';

export interface NewWorkspace {
  readonly name: string;
  readonly baseCurrency?: string;
}

export async function createWorkspace(input: NewWorkspace, now = new Date()): Promise<Workspace> {
  const at = now.toISOString();
  const workspace = v.parse(WorkspaceSchema, {
    ...workspaceDefaults,
    features: [...workspaceDefaults.features],
    workspaceId: newId('ws'),
    name: input.name,
    baseCurrency: input.baseCurrency ?? workspaceDefaults.baseCurrency,
    createdAt: at,
    updatedAt: at,
  });
  const created = await putItem({
    Item: { ...keys.workspace(workspace.workspaceId), type: 'workspace', ...workspace },
    ConditionExpression: 'attribute_not_exists(PK)',
  });
  if (created.refused) throw created.error;
  return workspace;
}

export async function getWorkspace(workspaceId: string): Promise<Workspace | undefined> {
  const Item = await getItem({ Key: keys.workspace(workspaceId) });
  return Item ? v.parse(WorkspaceSchema, Item) : undefined;
}

export const WorkspaceChangesSchema = v.partial(
  v.pick(WorkspaceSchema, [
    'status',
    'features',
    'rateLimit',
    'overviewRateLimit',
    'monthlyLines',
    'batchRecordCap',
    'batchLineCap',
    'connectorLimit',
    'pricing',
  ]),
);
export type WorkspaceChanges = v.InferOutput<typeof WorkspaceChangesSchema>;

export async function updateWorkspace(workspaceId: string, changes: WorkspaceChanges, now = new Date()): Promise<Workspace> {
  const valid = v.parse(WorkspaceChangesSchema, changes);
  const entries = Object.entries({ ...valid, updatedAt: now.toISOString() }).filter(([, value]) => value !== undefined);
  const updated = await updateItem({
    Key: keys.workspace(workspaceId),
    UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
    ConditionExpression: 'attribute_exists(PK)',
    ReturnValues: 'ALL_NEW',
  });
  if (updated.refused) throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
  return v.parse(WorkspaceSchema, updated.attributes);
}

/** One of the items `putWorkspaceItems` writes is there already: an email taken by another console user, say. */
export class ItemAlreadyExists extends Error {
  constructor() {
    super('an item with this key already exists');
    this.name = 'ItemAlreadyExists';
  }
}

/**
 * Writes a new item that belongs to a workspace, only while the workspace exists, in one transaction. Without the
 * check an item could outlive, or never have had, its workspace.
 */
export async function putWorkspaceItem(workspaceId: string, item: Record<string, unknown> & { PK: string; SK: string }): Promise<void> {
  await putWorkspaceItems(workspaceId, [item]);
}

/**
 * Writes new items of a workspace together, only while the workspace exists and none of them does: an item and its
 * listing entry, say. A key already taken throws ItemAlreadyExists.
 */
export async function putWorkspaceItems(
  workspaceId: string,
  items: ReadonlyArray<Record<string, unknown> & { PK: string; SK: string }>,
): Promise<void> {
  try {
    await transactWrite([
      { ConditionCheck: { Key: keys.workspace(workspaceId), ConditionExpression: 'attribute_exists(PK)' } },
      ...items.map((item) => ({ Put: { Item: item, ConditionExpression: 'attribute_not_exists(PK)' } })),
    ]);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
    if (codes?.slice(1).some((code) => code === 'ConditionalCheckFailed')) throw new ItemAlreadyExists();
    throw error;
  }
}
