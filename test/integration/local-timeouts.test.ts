// Local invocations end at their timeout as on Lambda: the caller is answered 503 and nothing the function does later counts.
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gateway, startGateway } from '#lib/local/gateway.ts';
import { tableName } from '#platform/config.ts';
import { tableClient } from '#platform/table/client.ts';
import { call } from './support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each write the handlers attempt, by the item's id, so that a test can wait for one that happens after its answer. */
const attempts = new Map<string, PromiseWithResolvers<unknown>>();
function attempt(id: string): PromiseWithResolvers<unknown> {
  let entry = attempts.get(id);
  if (!entry) {
    entry = Promise.withResolvers<unknown>();
    // A refused write is what some tests expect; they read the outcome with allSettled.
    entry.promise.catch(() => undefined);
    attempts.set(id, entry);
  }
  return entry;
}

const key = (id: string) => ({ PK: `test#local-timeouts#${id}`, SK: 'item' });

async function write(id: string): Promise<void> {
  const pending = attempt(id);
  try {
    pending.resolve(await tableClient().send(new PutCommand({ TableName: tableName(), Item: { ...key(id), writtenAt: Date.now() } })));
  } catch (error) {
    pending.reject(error);
  }
}

async function stored(id: string): Promise<unknown> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: key(id), ConsistentRead: true }));
  return Item;
}

/** Writes its item once it is `lateByMs` past its deadline, as a handler kept busy past its timeout would. */
async function lateWriter(event: APIGatewayProxyEventV2, context: Context) {
  const id = event.queryStringParameters?.id ?? '';
  await sleep(context.getRemainingTimeInMillis() + Number(event.queryStringParameters?.lateByMs ?? 200));
  await write(id);
  return { statusCode: 200, body: '{}' };
}

async function promptWriter(event: APIGatewayProxyEventV2) {
  await write(event.queryStringParameters?.id ?? '');
  return { statusCode: 200, body: '{}' };
}

describe('a local function that outlives its timeout', () => {
  let gateway: Gateway;

  beforeAll(async () => {
    gateway = await startGateway({
      host: '127.0.0.1',
      port: 0,
      routes: [
        { method: 'GET', path: '/late', entry: 'late', name: 'late', memoryMb: 128, timeoutSeconds: 1 },
        // Generous, so that a busy machine never times it out: this one is meant to finish.
        { method: 'GET', path: '/prompt', entry: 'prompt', name: 'prompt', memoryMb: 128, timeoutSeconds: 20 },
      ],
      fallback: { entry: 'prompt', name: 'fallback', memoryMb: 128, timeoutSeconds: 20 },
      load: async (entry) => (entry === 'late' ? lateWriter : promptWriter),
    });
  });
  afterAll(() => gateway.stop());

  it('answers its caller 503, and a table write it attempts after its deadline does not land', async () => {
    const id = randomUUID();
    const response = await call(`/late?id=${id}`, { baseUrl: gateway.url });
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ message: 'Service Unavailable' });

    const [outcome] = await Promise.allSettled([attempt(id).promise]);
    expect(outcome).toMatchObject({ status: 'rejected', reason: { name: 'InvocationTimedOut' } });
    expect(await stored(id)).toBeUndefined();
  });

  it('fences only the invocation that timed out: one running beside it, and calls outside any invocation, still write', async () => {
    const late = randomUUID();
    const prompt = randomUUID();
    // The late invocation stays alive well past its deadline, while the prompt one runs.
    const lateResponse = await call(`/late?id=${late}&lateByMs=1500`, { baseUrl: gateway.url });
    expect(lateResponse.status).toBe(503);

    const promptResponse = await call(`/prompt?id=${prompt}`, { baseUrl: gateway.url });
    expect(promptResponse.status).toBe(200);
    expect(await stored(prompt)).toMatchObject(key(prompt));

    const [outcome] = await Promise.allSettled([attempt(late).promise]);
    expect(outcome.status).toBe('rejected');
    expect(await stored(late)).toBeUndefined();

    // The test itself runs in no invocation: its own write lands after all that.
    const own = randomUUID();
    await write(own);
    expect(await stored(own)).toMatchObject(key(own));
  });
});
