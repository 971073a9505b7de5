// Connector items in the table: create and read a workspace's connectors.
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '../config.ts';
import { ApiError } from '../errors.ts';
import { newId } from '../ids.ts';
import { tableClient } from '../table/client.ts';
import { keys } from '../table/keys.ts';
import { type Connector, ConnectorSchema } from './schema.ts';

export interface NewConnector {
  readonly workspaceId: string;
  readonly name: string;
  readonly receivesWritebacks: boolean;
}

export async function createConnector(input: NewConnector, now = new Date()): Promise<Connector> {
  const connector = v.parse(ConnectorSchema, { ...input, connectorId: newId('con'), createdAt: now.toISOString() });
  const table = tableName();
  try {
    await tableClient().send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: table, Key: keys.workspace(input.workspaceId), ConditionExpression: 'attribute_exists(PK)' } },
          {
            Put: {
              TableName: table,
              Item: { ...keys.connector(input.workspaceId, connector.connectorId), type: 'connector', ...connector },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') {
      throw new ApiError('not_found', `workspace ${input.workspaceId} does not exist`);
    }
    throw error;
  }
  return connector;
}

export async function getConnector(workspaceId: string, connectorId: string): Promise<Connector | undefined> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.connector(workspaceId, connectorId), ConsistentRead: true }),
  );
  return Item ? v.parse(ConnectorSchema, Item) : undefined;
}
