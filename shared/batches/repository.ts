// Batch items in the table: open a batch for a connector.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '../config.ts';
import { newBatchId } from '../ids.ts';
import { tableClient } from '../table/client.ts';
import { keys } from '../table/keys.ts';
import { type Batch, BatchSchema } from './schema.ts';

export async function openBatch(owner: { workspaceId: string; connectorId: string }, now = new Date()): Promise<Batch> {
  const batch = v.parse(BatchSchema, {
    batchId: newBatchId(),
    workspaceId: owner.workspaceId,
    connectorId: owner.connectorId,
    status: 'open',
    entities: [],
    recordCount: 0,
    skippedOverCap: 0,
    createdAt: now.toISOString(),
  });
  await tableClient().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.batch(batch.workspaceId, batch.batchId), type: 'batch', ...batch },
      // A v4 UUID does not collide in practice; the condition makes sure a collision could never overwrite a batch.
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return batch;
}
