// POST /api/v1/ingest/batches through the local gateway against DynamoDB Local.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /api/v1/ingest/batches', () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await newWorkspace();
  });

  it("opens a batch for the calling key's connector and stores it as open", async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector });

    expect(response.status).toBe(201);
    expect(response.json).toEqual({ batchId: expect.stringMatching(UUID_V4), connectorId: workspace.connectorId });
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.batch(workspace.workspaceId, response.json.batchId), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({
      status: 'open',
      connectorId: workspace.connectorId,
      workspaceId: workspace.workspaceId,
      recordCount: 0,
      skippedOverCap: 0,
    });
  });

  it('gives every batch its own id', async () => {
    const opened = await Promise.all(
      Array.from({ length: 5 }, () => call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector })),
    );
    expect(new Set(opened.map((response) => response.json.batchId)).size).toBe(5);
  });

  it('accepts an empty JSON object as the body', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector, body: {} });
    expect(response.status).toBe(201);
  });

  it('rejects a body with a field, naming the field, and opens nothing', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector, body: { name: 'x' } });
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', param: 'name' });
  });

  it('answers a body that is not JSON with invalid_json', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.connector, body: '{"oops' });
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('invalid_json');
  });

  it('checks the key before it reads the body', async () => {
    const response = await call('/api/v1/ingest/batches', { method: 'POST', key: workspace.keys.erp, body: '{"oops' });
    expect(response.status).toBe(403);
  });
});
