// Connector items in the table: create (within the workspace's connector limit), read and list a workspace's connectors.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import { getItems, pause } from '#platform/table/bulk.ts';
import { cancellationCodes, getItem, queryPage, transactWrite } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { workspaceDefaults } from '#shared/workspaces/schema.ts';
import { type Connector, ConnectorSchema } from './schema.ts';

export interface NewConnector {
  readonly workspaceId: string;
  readonly name: string;
  readonly receivesWritebacks: boolean;
}

/** Creations of one workspace at once settle within a few turns on its count. */
const CREATE_ATTEMPTS = 10;

export function connectorLimitReached(limit: number): ApiError {
  return new ApiError(
    'connector_limit_reached',
    `The workspace has ${limit} connectors, its limit: an approval publishes to every connector within its request. Ask an operator to raise the limit (admin workspace update --connector-limit).`,
  );
}

/** How many connectors the workspace has, counted once for a workspace whose item does not keep the count yet. */
async function countConnectors(workspaceId: string): Promise<number> {
  const prefix = keys.connectorPrefix(workspaceId);
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
      Select: 'COUNT',
      ConsistentRead: true,
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/**
 * Creates a connector, refused with connector_limit_reached once the workspace has as many as its limit. The
 * workspace item keeps the count, advanced in the connector's own transaction on the condition that it is still the
 * count read, so that creations at once never pass the limit together.
 */
export async function createConnector(input: NewConnector, now = new Date()): Promise<Connector> {
  const connector = v.parse(ConnectorSchema, { ...input, connectorId: newId('con'), createdAt: now.toISOString() });
  const { workspaceId } = input;
  for (let attempt = 1; ; attempt++) {
    const workspace = await getItem({ Key: keys.workspace(workspaceId), ConsistentRead: true });
    if (!workspace) throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
    const limit = Number(workspace.connectorLimit ?? workspaceDefaults.connectorLimit);
    const kept = typeof workspace.connectorCount === 'number' ? workspace.connectorCount : undefined;
    const count = kept ?? (await countConnectors(workspaceId));
    if (count >= limit) throw connectorLimitReached(limit);
    try {
      await transactWrite([
        {
          Update: {
            Key: keys.workspace(workspaceId),
            UpdateExpression: 'SET connectorCount = :next',
            ConditionExpression: `attribute_exists(PK) AND ${kept === undefined ? 'attribute_not_exists(connectorCount)' : 'connectorCount = :seen'}`,
            ExpressionAttributeValues: { ':next': count + 1, ...(kept === undefined ? {} : { ':seen': kept }) },
          },
        },
        {
          Put: {
            Item: { ...keys.connector(workspaceId, connector.connectorId), type: 'connector', ...connector },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ]);
      return connector;
    } catch (error) {
      const name = (error as { name?: string } | undefined)?.name;
      // Another creation took the count first: read it again.
      if ((cancellationCodes(error) === undefined && name !== 'TransactionConflictException') || attempt >= CREATE_ATTEMPTS) throw error;
      await pause(attempt);
    }
  }
}

export async function getConnector(workspaceId: string, connectorId: string): Promise<Connector | undefined> {
  const Item = await getItem({ Key: keys.connector(workspaceId, connectorId), ConsistentRead: true });
  return Item ? v.parse(ConnectorSchema, Item) : undefined;
}

/** The names of some of the workspace's connectors by id, for pages that name them: one BatchGetItem, eventually consistent. */
export async function connectorNames(workspaceId: string, connectorIds: readonly string[]): Promise<Map<string, string>> {
  if (connectorIds.length === 0) return new Map();
  const items = await getItems(
    [...new Set(connectorIds)].map((connectorId) => keys.connector(workspaceId, connectorId)),
    { consistent: false },
  );
  return new Map(items.map((item) => v.parse(ConnectorSchema, item)).map((connector) => [connector.connectorId, connector.name]));
}

/** Every connector of a workspace: they share the workspace's partition, under one sort-key prefix, at most its limit. */
export async function listConnectors(workspaceId: string): Promise<Connector[]> {
  const prefix = keys.connectorPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
  });
  return items.map((item) => v.parse(ConnectorSchema, item));
}

/** Connectors a console page shows at once, each with its own list of tasks or batches. */
export const CONNECTORS_PER_PAGE = 5;

export interface ConnectorsPage {
  readonly connectors: Connector[];
  /** The last connector shown, to start the next page after; undefined on the last page. */
  readonly next: string | undefined;
}

/** One page of a workspace's connectors in id order, after `after` when given: one Query of at most `limit` items. */
export async function connectorsPage(workspaceId: string, after: string | undefined, limit = CONNECTORS_PER_PAGE): Promise<ConnectorsPage> {
  const prefix = keys.connectorPrefix(workspaceId);
  const start = after && /^con_[0-9A-Za-z]{1,64}$/.test(after) ? keys.connector(workspaceId, after) : undefined;
  const { Items = [], LastEvaluatedKey } = await queryPage({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    Limit: limit,
    ...(start ? { ExclusiveStartKey: start } : {}),
  });
  const connectors = Items.map((item) => v.parse(ConnectorSchema, item));
  return { connectors, next: LastEvaluatedKey ? connectors.at(-1)?.connectorId : undefined };
}
