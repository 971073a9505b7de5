// Workspace items in the table: create, read and update the tenant record.
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import { isConditionFailure, tableClient } from '#platform/table/client.ts';
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
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.workspace(workspace.workspaceId), type: 'workspace', ...workspace },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return workspace;
}

export async function getWorkspace(workspaceId: string): Promise<Workspace | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.workspace(workspaceId) }));
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
    'pricing',
  ]),
);
export type WorkspaceChanges = v.InferOutput<typeof WorkspaceChangesSchema>;

export async function updateWorkspace(workspaceId: string, changes: WorkspaceChanges, now = new Date()): Promise<Workspace> {
  const valid = v.parse(WorkspaceChangesSchema, changes);
  const entries = Object.entries({ ...valid, updatedAt: now.toISOString() }).filter(([, value]) => value !== undefined);
  try {
    const { Attributes } = await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.workspace(workspaceId),
        UpdateExpression: `SET ${entries.map(([name]) => `#${name} = :${name}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([name, value]) => [`:${name}`, value])),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return v.parse(WorkspaceSchema, Attributes);
  } catch (error) {
    if (isConditionFailure(error)) {
      throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
    }
    throw error;
  }
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
  const TableName = tableName();
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName, Key: keys.workspace(workspaceId), ConditionExpression: 'attribute_exists(PK)' } },
          ...items.map((item) => ({ Put: { TableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } })),
        ],
      }),
    );
  } catch (error) {
    const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
    if ((error as Error).name === 'TransactionCanceledException' && reasons?.[0]?.Code === 'ConditionalCheckFailed') {
      throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
    }
    if (
      (error as Error).name === 'TransactionCanceledException' &&
      reasons?.slice(1).some((reason) => reason.Code === 'ConditionalCheckFailed')
    ) {
      throw new ItemAlreadyExists();
    }
    throw error;
  }
}
