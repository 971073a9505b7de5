// The metrics two alarms read, as the handlers write them (an endpoint disabled after days of failing, each request against its route's latency budget), and the endpoint mark a parked delivery owes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { requestMetricNames } from '#platform/observability.ts';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient } from '#platform/table/client.ts';
import { recordAttempt } from '#shared/webhooks/attempt-log.ts';
import { attemptDelivery } from '#shared/webhooks/attempt.ts';
import { createEndpoint, FAILING_DISABLES_AFTER_MS, getEndpoint, markEndpointFailure } from '#shared/webhooks/endpoints.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { outboxPut } from '#shared/webhooks/outbox.ts';
import { RETRY_SCHEDULE_MS } from '#shared/webhooks/retry-schedule.ts';
import { webhookHealthMetricNames } from '#shared/webhooks/health-metrics.ts';
import { randomUUID } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import { createDrainHandler } from '../../functions/workers/drain.ts';
import { createDeliveryHandler } from '../../functions/workers/deliver-webhooks.ts';
import { getBatch } from '#shared/batches/repository.ts';
import { committedBatch, drainCatalogue } from './drain-support.ts';
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

describe('a parked delivery whose worker died before it marked the endpoint', () => {
  it('is marked failing by the parking message received again, once, with no second parked count', async () => {
    const workspace = await newWorkspace('Parked Recovery Seller');
    // Subscribed to another type: the stack's own sweeper never sends this endpoint the event below.
    const { endpoint } = await createEndpoint(
      workspace.workspaceId,
      { url: 'http://127.0.0.1:9/hooks', eventTypes: ['price.approved'] },
      { allowLoopbackHttp: true },
      Date.now(),
    );
    const event = newEvent(
      'batch.committed',
      workspace.workspaceId,
      {
        batchId: crypto.randomUUID(),
        connectorId: workspace.connectorId,
        jobId: 'job_parked',
        recordCount: 0,
        committedAt: new Date().toISOString(),
      },
      new Date(),
    );
    await tableClient().send(new TransactWriteCommand({ TransactItems: [outboxPut(event)] }));
    // The last attempt of the schedule, logged and its delivery parked; then the worker died, before the endpoint's mark.
    const seq = RETRY_SCHEDULE_MS.length + 1;
    const attemptedAt = new Date().toISOString();
    const delivery = { eventId: event.id, eventType: event.type, eventTimestamp: event.timestamp, endpointId: endpoint.endpointId };
    const logged = await recordAttempt(
      event,
      { eventId: event.id, endpointId: endpoint.endpointId, seq, attemptedAt, latencyMs: 0, error: 'connection refused' },
      { ...delivery, status: 'parked', attempts: seq, lastAttemptAt: attemptedAt, lastError: 'connection refused' },
      Date.now(),
    );
    expect(logged).toBe(true);
    expect((await getEndpoint(workspace.workspaceId, endpoint.endpointId))?.status).toBe('healthy');

    const message = {
      kind: 'attempt' as const,
      workspaceId: workspace.workspaceId,
      eventId: event.id,
      endpointId: endpoint.endpointId,
      seq,
      tryInRun: seq,
    };
    const received = await written(async () => expect(await attemptDelivery(message)).toBe('duplicate'));
    const marked = await getEndpoint(workspace.workspaceId, endpoint.endpointId);
    expect(marked?.status).toBe('failing');
    expect(received.filter((object) => webhookHealthMetricNames.parked in object)).toEqual([]);

    // A third receive finds the mark made: the streak keeps its start.
    expect(await attemptDelivery(message)).toBe('duplicate');
    expect((await getEndpoint(workspace.workspaceId, endpoint.endpointId))?.failingSince).toBe(marked?.failingSince);
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

function sqsRecord(body: string, queue: string): SQSRecord {
  return {
    messageId: randomUUID(),
    receiptHandle: randomUUID(),
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: '0',
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
    awsRegion: 'us-east-1',
  };
}

/** What a queue worker wrote for one failed message: its ERROR lines and its counts of failed messages. */
function failureOf(objects: ReadonlyArray<Record<string, unknown>>) {
  return {
    errors: objects.filter((object) => object.level === 'ERROR'),
    counted: objects.filter((object) => requestMetricNames.workerFailures in object),
  };
}

describe('a message a queue worker fails', () => {
  const context = createLambdaContext({ name: 'drain', memoryMb: 1024, timeoutSeconds: 120 });

  it('is logged once at ERROR with its cause and its job, and counted once for the WorkerErrors alarm', async () => {
    const batch = await committedBatch(drainCatalogue(7));
    const record = sqsRecord(JSON.stringify(batch.message), 'drain');
    const failing = createDrainHandler({
      afterChunkWritten: () => {
        throw new RangeError('the disk is full');
      },
    });
    let response: unknown;
    const { errors, counted } = failureOf(await written(async () => (response = await failing({ Records: [record] }, context))));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'queue message failed',
        route: 'drain',
        messageId: record.messageId,
        workspaceId: batch.workspace.workspaceId,
        batchId: batch.batchId,
        jobId: batch.message.jobId,
        error: expect.objectContaining({ name: 'RangeError', message: 'the disk is full' }),
      }),
    ]);
    expect(counted).toEqual([expect.objectContaining({ [requestMetricNames.workerFailures]: 1, route: 'drain' })]);
    // Failed for redelivery, not given up.
    expect(await getBatch(batch.workspace.workspaceId, batch.batchId)).toMatchObject({ status: 'draining' });
  });

  it('names the message whose body names no job, on either worker', async () => {
    const drainRecord = sqsRecord('{"batchId": 7}', 'drain');
    const webhookRecord = sqsRecord('{"kind": "fanOut"}', 'webhooks');
    const drained = failureOf(await written(() => createDrainHandler()({ Records: [drainRecord] }, context)));
    const delivered = failureOf(await written(() => createDeliveryHandler()({ Records: [webhookRecord] }, context)));
    for (const [{ errors, counted }, record, route] of [
      [drained, drainRecord, 'drain'],
      [delivered, webhookRecord, 'deliverWebhooks'],
    ] as const) {
      expect(errors).toEqual([
        expect.objectContaining({ route, messageId: record.messageId, error: expect.objectContaining({ name: 'ValiError' }) }),
      ]);
      expect(counted).toEqual([expect.objectContaining({ route })]);
    }
  });
});
