import { createRequire } from 'node:module';
import type * as TracerPackage from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';

const lambdaEnvironment = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  LAMBDA_TASK_ROOT: '/var/task',
  _HANDLER: 'index.handler',
  _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
  AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
  // Nothing listens there: segments sent while the tests run go nowhere.
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2',
  POWERTOOLS_TRACE_ENABLED: 'true',
};

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const load = createRequire(import.meta.url);

/**
 * tracing.ts loads the tracer the CommonJS way, as it would from the layer, and the X-Ray SDK reads its environment once,
 * when loaded: each test loads both afresh under its own environment.
 */
async function freshTracing(environment: Record<string, string> = {}) {
  for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
  for (const path of Object.keys(load.cache)) {
    if (/aws-xray-sdk-core|@aws-lambda-powertools[\\/](tracer|commons)|cls-hooked/.test(path)) delete load.cache[path];
  }
  vi.resetModules();
  const tracing = await import('./tracing.ts');
  const { Tracer } = load('@aws-lambda-powertools/tracer') as typeof TracerPackage;
  return { ...tracing, Tracer };
}

const context = { awsRequestId: 'request-1', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

interface SeenSegment {
  annotations?: Record<string, unknown>;
  fault?: boolean;
  error?: boolean;
  isClosed(): boolean;
}

/** A handler traced as the endpoints are, answering like the error envelope does when `status` is given. */
async function tracedCall(status: number | 'throw') {
  const { annotateWorkspace, traceRequests, Tracer } = await freshTracing(lambdaEnvironment);
  let segment: SeenSegment | undefined;
  const envelope: MiddlewareObj<unknown, { statusCode: number }, Error, Context> = {
    onError: (request) => {
      if (status !== 'throw') request.response = { statusCode: status };
    },
  };
  const handler = middy<unknown, { statusCode: number }, Error, Context>()
    .use(traceRequests<unknown, { statusCode: number }>('priceLines'))
    .use(envelope)
    .handler(async () => {
      annotateWorkspace('ws_1');
      segment = new Tracer().getSegment() as unknown as SeenSegment;
      throw new Error('refused or failed');
    });
  await handler({}, context).catch(() => undefined);
  return segment;
}

describe('tracing', () => {
  it('outside Lambda traces nothing: an AWS client comes back as it was', async () => {
    const { traceAwsClient } = await freshTracing();
    const client = new DynamoDBClient({ region: 'us-east-1' });
    const before = client.middlewareStack.identify();
    expect(traceAwsClient(client)).toBe(client);
    expect(client.middlewareStack.identify()).toEqual(before);
  });

  it('in Lambda, the handler’s segment carries the route and the workspace', async () => {
    const segment = await tracedCall(200);
    expect(segment?.annotations).toMatchObject({ route: 'priceLines', workspaceId: 'ws_1' });
    expect(segment?.isClosed()).toBe(true);
  });

  it('a refusal the envelope answered 4xx closes the segment as an answer, not a fault', async () => {
    const segment = await tracedCall(404);
    expect(segment?.isClosed()).toBe(true);
    expect(segment?.fault).toBeFalsy();
    expect(segment?.error).toBeFalsy();
  });

  it('a 5xx, or an error nothing answered, is recorded as a fault', async () => {
    for (const status of [500, 'throw'] as const) {
      const segment = await tracedCall(status);
      expect(segment?.isClosed(), String(status)).toBe(true);
      expect(segment?.fault, String(status)).toBe(true);
    }
  });

  it('in Lambda, an AWS client is captured: its calls become subsegments', async () => {
    const { traceAwsClient } = await freshTracing(lambdaEnvironment);
    const client = new DynamoDBClient({ region: 'us-east-1' });
    const before = client.middlewareStack.identify().length;
    traceAwsClient(client);
    expect(client.middlewareStack.identify().length).toBeGreaterThan(before);
  });
});
