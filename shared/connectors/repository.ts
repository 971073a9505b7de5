// Connector items in the table: create, read and list a workspace's connectors.
import * as v from 'valibot';
import { newId } from '#platform/ids.ts';
import { getItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { putWorkspaceItem } from '#shared/workspaces/repository.ts';
import { type Connector, ConnectorSchema } from './schema.ts';

export interface NewConnector {
  readonly workspaceId: string;
  readonly name: string;
  readonly receivesWritebacks: boolean;
}

export async function createConnector(input: NewConnector, now = new Date()): Promise<Connector> {
  const connector = v.parse(ConnectorSchema, { ...input, connectorId: newId('con'), createdAt: now.toISOString() });
  await putWorkspaceItem(input.workspaceId, {
    ...keys.connector(input.workspaceId, connector.connectorId),
    type: 'connector',
    ...connector,
  });
  return connector;
}

export async function getConnector(workspaceId: string, connectorId: string): Promise<Connector | undefined> {
  const Item = await getItem({ Key: keys.connector(workspaceId, connectorId), ConsistentRead: true });
  return Item ? v.parse(ConnectorSchema, Item) : undefined;
}

/** Every connector of a workspace: they share the workspace's partition, under one sort-key prefix. */
export async function listConnectors(workspaceId: string): Promise<Connector[]> {
  const prefix = keys.connectorPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
  });
  return items.map((item) => v.parse(ConnectorSchema, item));
}
