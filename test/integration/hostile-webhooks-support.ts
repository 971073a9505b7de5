// The hostile webhook tests' setting: their receivers and endpoints (deleted at the end), the events they record as commits and approvals do, and what they read back.
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { tableClient } from '#platform/table/client.ts';
import { listAttempts, listDeliveries } from '#shared/webhooks/attempt-log.ts';
import type { DeliveryAttempt } from '#shared/webhooks/delivery-schema.ts';
import { createEndpoint } from '#shared/webhooks/endpoints.ts';
import { type EventType, newEvent, type WebhookEvent } from '#shared/webhooks/events.ts';
import { handOn, outboxPut } from '#shared/webhooks/outbox.ts';
import { call, type TestWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

export const ENDPOINTS = '/v1/webhook-endpoints';

const receivers: Receiver[] = [];
/** Endpoints to delete at the end, so that a flood's deferred deliveries stop at once instead of lingering in the stack. */
const cleanup: Array<{ workspace: TestWorkspace; endpointId: string }> = [];

/** Deletes every endpoint the tests made and closes their receivers; for afterAll. */
export async function cleanUp(): Promise<void> {
  await Promise.all(
    cleanup.map(({ workspace, endpointId }) => call(`${ENDPOINTS}/${endpointId}`, { method: 'DELETE', key: workspace.keys.pwLive })),
  );
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
}

/** Deletes the workspace's endpoints: what is still queued for them is dropped at its next receive. */
export async function stopFlood(workspace: TestWorkspace): Promise<void> {
  const flood = cleanup.filter((entry) => entry.workspace === workspace);
  await Promise.all(flood.map(({ endpointId }) => call(`${ENDPOINTS}/${endpointId}`, { method: 'DELETE', key: workspace.keys.pwLive })));
  cleanup.splice(0, cleanup.length, ...cleanup.filter((entry) => entry.workspace !== workspace));
}

export async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

/** An endpoint of the workspace at `url`, subscribed to `eventTypes`; the receiver verifies with its secret when given. */
export async function endpointAt(
  workspace: TestWorkspace,
  url: string,
  verifying?: Receiver,
  eventTypes: readonly EventType[] = ['batch.committed'],
): Promise<string> {
  const { endpoint, secret } = await createEndpoint(
    workspace.workspaceId,
    { url, eventTypes: [...eventTypes] },
    { allowLoopbackHttp: true },
    Date.now(),
  );
  verifying?.verifyWith(secret);
  cleanup.push({ workspace, endpointId: endpoint.endpointId });
  return endpoint.endpointId;
}

/** Writes the events to the outbox, 25 to a transaction, and hands them to the queue, as their commits do. */
export async function commitEvents(events: readonly WebhookEvent[]): Promise<void> {
  for (let start = 0; start < events.length; start += 25) {
    await tableClient().send(new TransactWriteCommand({ TransactItems: events.slice(start, start + 25).map(outboxPut) }));
  }
  await handOn(events);
}

/** Records `count` batch.committed events of the workspace and hands them to the queue, as a commit does. */
export async function recordEvents(workspace: TestWorkspace, count: number): Promise<WebhookEvent[]> {
  const events = Array.from({ length: count }, () =>
    newEvent(
      'batch.committed',
      workspace.workspaceId,
      {
        batchId: crypto.randomUUID(),
        connectorId: workspace.connectorId,
        jobId: 'job_hostile',
        recordCount: 0,
        committedAt: new Date().toISOString(),
      },
      new Date(),
    ),
  );
  await commitEvents(events);
  return events;
}

/** The event types an approval reports: the approval, and one write-back task per connector it is published to. */
export const APPROVAL_EVENT_TYPES = ['price.approved', 'writeback.pending'] as const satisfies readonly EventType[];

/**
 * The events of `approvals` approvals of the workspace, each published to `connectors` connectors, as the approval's
 * commit records them: a price.approved and a writeback.pending per connector.
 */
export function approvalEvents(workspace: TestWorkspace, approvals: number, connectors: number): WebhookEvent[] {
  const now = new Date();
  const at = now.toISOString();
  return Array.from({ length: approvals }, (_, index) => {
    const approvalId = `apv_flood${index}`;
    const sku = `SKU-${index}`;
    const tasks = Array.from({ length: connectors }, (_, connector) => ({
      connectorId: `con_flood${connector}`,
      writebackId: `wbt_${index}_${connector}`,
    }));
    const approved = newEvent(
      'price.approved',
      workspace.workspaceId,
      {
        approvalId,
        sku,
        priceCents: 1_000,
        currency: 'EUR',
        recommendedPriceCents: 1_000,
        approvedAt: at,
        livemode: true,
        publishedTo: tasks,
        approvedBy: { type: 'api_key', id: 'key_flood' },
        confirmation: null,
        secondApprover: null,
      },
      now,
    );
    const pending = tasks.map((task) =>
      newEvent(
        'writeback.pending',
        workspace.workspaceId,
        { ...task, approvalId, productSku: sku, priceCents: 1_000, currency: 'EUR', createdAt: at },
        now,
      ),
    );
    return [approved, ...pending];
  }).flat();
}

export async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every attempt logged at the endpoint, across its deliveries. */
export async function loggedAttempts(workspace: TestWorkspace, endpointId: string): Promise<DeliveryAttempt[]> {
  const { deliveries } = await listDeliveries(workspace.workspaceId, endpointId, { limit: 100 });
  const perDelivery = await Promise.all(deliveries.map((delivery) => listAttempts(workspace.workspaceId, endpointId, delivery.eventId)));
  return perDelivery.flat();
}

/** The most attempts that were waiting on their receivers at one moment, each from its start for its latency. */
export function mostAtOnce(attempts: readonly DeliveryAttempt[]): number {
  const edges = attempts.flatMap((attempt) => {
    const start = Date.parse(attempt.attemptedAt);
    return [
      { at: start, change: 1 },
      { at: start + attempt.latencyMs, change: -1 },
    ];
  });
  // An attempt ending at the moment another starts was not waiting beside it.
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.change;
    most = Math.max(most, open);
  }
  return most;
}

/** How long after its commit one event of the workspace reached the receiver, its first attempt. */
export async function firstAttemptMs(workspace: TestWorkspace, own: Receiver): Promise<number> {
  const started = Date.now();
  const [event] = await recordEvents(workspace, 1);
  await own.waitFor((requests) => requests.some((request) => request.webhookId === event?.id), 120_000);
  return Date.now() - started;
}
