// The bundles the stack deploys, loaded and invoked as Lambda would against DynamoDB Local.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FunctionBundle } from '#lib/stack/bundles.ts';
import { deployedBundles } from '../deployed-bundles.ts';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { consoleRoutes, fallbackRoute, routes, scheduledJobs, workers } from '#edge/routes.ts';
import { newWorkspace } from './support.ts';

describe('the deployed bundles', () => {
  let bundles: FunctionBundle[];
  // The stack tests may be building the same bundles: the first to ask builds them, the other waits (a few minutes at
  // most on a loaded two-core machine).
  beforeAll(async () => {
    bundles = await deployedBundles();
  }, 600_000);

  it('open a batch as the source does, with credentials from the environment alone', async () => {
    const workspace = await newWorkspace();
    const bundle = bundles.find((candidate) => candidate.id === 'openBatch');
    if (!bundle) throw new Error('no openBatch bundle');
    const { handler } = await import(pathToFileURL(bundle.path).href);
    const event = buildEvent(
      {
        method: 'POST',
        url: '/api/v1/ingest/batches',
        headers: { authorization: `Bearer ${workspace.keys.connector}`, host: 'api.example.com' },
        body: Buffer.alloc(0),
        sourceIp: '203.0.113.9',
      },
      'POST /api/v1/ingest/batches',
      undefined,
    );
    const result = await handler(event, createLambdaContext({ name: 'openBatch', memoryMb: 256, timeoutSeconds: 10 }));
    expect(result.statusCode).toBe(201);
    expect(JSON.parse(result.body).connectorId).toBe(workspace.connectorId);
  });

  it('exist for every route, the fallback route, every worker and every scheduled job of the route table', () => {
    const rows = [...routes, ...consoleRoutes, fallbackRoute, ...workers, ...scheduledJobs].map((row) => row.id).sort();
    expect(bundles.map((bundle) => bundle.id).sort()).toEqual(rows);
  });

  it('leave the SDK credential chain (SSO, STS web identity) out of every bundle', () => {
    for (const bundle of bundles) {
      const code = readFileSync(bundle.path, 'utf8');
      expect(code.includes('AssumeRoleWithWebIdentity') || code.includes('GetRoleCredentials'), bundle.id).toBe(false);
    }
  });
});
