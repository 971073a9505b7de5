// The metrics two alarms read, as the handlers write them: an endpoint disabled after days of failing, and each request against its route's latency budget.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { requestMetricNames } from '#platform/observability.ts';
import { FAILING_DISABLES_AFTER_MS, getEndpoint, markEndpointFailure } from '#shared/webhooks/endpoints.ts';
import { webhookHealthMetricNames } from '#shared/webhooks/health-metrics.ts';
import { call, newWorkspace } from './support.ts';

/** What the service wrote while `work` ran: EMF documents (with `_aws`) and log lines (with `level`). */
async function written(work: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const objects: Array<Record<string, unknown>> = [];
  // Local mode turns metrics off in the environment it sets; the stack's functions have them on.
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  // Warnings go to stderr, the rest to stdout.
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (const part of text.split('\n')) {
        if (!part.startsWith('{')) continue;
        try {
          objects.push(JSON.parse(part) as Record<string, unknown>);
        } catch {
          // Not a line of the service's.
        }
      }
      return true;
    }),
  );
  try {
    await work();
  } finally {
    for (const spy of spies) spy.mockRestore();
    vi.unstubAllEnvs();
  }
  return objects;
}

afterEach(() => vi.unstubAllEnvs());

describe('webhook health metrics', () => {
  it('count an endpoint disabled after five days of failing once, and no failure before it', async () => {
    const workspace = await newWorkspace('Webhook Health Seller');
    const created = await call('/v1/webhook-endpoints', {
      method: 'POST',
      key: workspace.keys.pwLive,
      body: { url: 'http://127.0.0.1:9/hooks', event_types: ['price.approved'] },
    });
    expect(created.status, created.text).toBe(201);
    const endpointId = created.json.id as string;
    const start = Date.now();

    const failing = await written(() => markEndpointFailure(workspace.workspaceId, endpointId, start));
    expect(failing.filter((object) => webhookHealthMetricNames.disabled in object)).toEqual([]);

    const disabling = await written(() => markEndpointFailure(workspace.workspaceId, endpointId, start + FAILING_DISABLES_AFTER_MS));
    expect((await getEndpoint(workspace.workspaceId, endpointId))?.status).toBe('disabled');
    const metrics = disabling.filter((object) => webhookHealthMetricNames.disabled in object);
    expect(metrics).toHaveLength(1);
    expect(metrics[0]?.[webhookHealthMetricNames.disabled]).toBe(1);
    expect(disabling.find((object) => object.message === 'webhook endpoint disabled')).toMatchObject({
      workspaceId: workspace.workspaceId,
      endpointId,
    });

    // Already disabled: a later parked delivery disables nothing more, and counts no second endpoint.
    const again = await written(() => markEndpointFailure(workspace.workspaceId, endpointId, start + 2 * FAILING_DISABLES_AFTER_MS));
    expect(again.filter((object) => webhookHealthMetricNames.disabled in object)).toEqual([]);
  });
});

describe('latency budget metrics', () => {
  it('every HTTP request counts whether it answered within its route’s budget, under the route’s own dimension', async () => {
    // The handler runs in this process, so that what it writes can be read.
    const { handler } = await import('../../functions/docs/route-not-found.ts');
    const event = buildEvent(
      { method: 'GET', url: '/v1/nowhere', headers: {}, body: Buffer.alloc(0), sourceIp: '127.0.0.1' },
      '$default',
      undefined,
    );
    let status: number | undefined;
    const objects = await written(async () => {
      const result = await handler(event, createLambdaContext({ name: 'routeNotFound', memoryMb: 128, timeoutSeconds: 5 }));
      status = result.statusCode;
    });
    expect(status).toBe(404);
    const [document, ...others] = objects.filter((object) => requestMetricNames.overLatencyBudget in object);
    expect(others).toEqual([]);
    expect(document?.route).toBe('routeNotFound');
    // Whether this one request was over its budget depends on the machine; that it counted 0 or 1 does not.
    expect([0, 1]).toContain(document?.[requestMetricNames.overLatencyBudget]);
  });
});
