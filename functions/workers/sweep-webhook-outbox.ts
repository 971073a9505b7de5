// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost, ends the second-approval waits that ran out, puts back on the drain queue the committed batches whose message was lost, and reports how long the oldest write-back task has waited.
import { logger, reportOpenTaskAge, reportUndrainedBatches } from '#platform/observability.ts';
import { type ChargeByItems, scheduledJob } from '#edge/background.ts';
import { backgroundFunction } from '#edge/metering.ts';
import { scheduledJobs } from '#edge/routes/workers.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { expireWaitingApprovals } from '#shared/approvals/expiry.ts';
import { requeueLostDrains } from '#shared/batches/drain-watch.ts';
import { sweepOutbox } from '#shared/webhooks/outbox.ts';
import { oldestOpenTaskSeconds } from '#shared/writebacks/waiting.ts';

const sweepFunction = backgroundFunction(scheduledJobs, 'sweepWebhookOutbox');

interface Swept {
  readonly swept: number;
  readonly expired: number;
  readonly requeued: number;
}

/** A sweep is charged to the workspaces whose events, waits and drains it handled, each its share by their number. */
export function sweepOnce(nowMs: () => number = Date.now): Promise<Swept> {
  return scheduledJob(sweepFunction, (charge) => sweep(nowMs, charge));
}

async function sweep(nowMs: () => number, charge: ChargeByItems): Promise<Swept> {
  // Waits first: the events of the waits it ends are handed on at once, and any whose hand-off fails is swept next time.
  const waits = await expireWaitingApprovals(nowMs());
  if (waits.expired > 0) logger.info('second-approval waits expired', { expired: waits.expired });
  const swept = await sweepOutbox(nowMs());
  if (swept.sent > 0) logger.info('webhook outbox swept', { swept: swept.sent });
  const drains = await requeueLostDrains(nowMs());
  reportUndrainedBatches(drains.oldestUndrainedSeconds);
  const requeued = [...drains.requeued.values()].reduce((sum, count) => sum + count, 0);
  if (requeued > 0) logger.warn('drain messages put back on the queue', { requeued });
  const perWorkspace = new Map(swept.perWorkspace);
  for (const counts of [waits.perWorkspace, drains.requeued])
    for (const [workspaceId, count] of counts) perWorkspace.set(workspaceId, (perWorkspace.get(workspaceId) ?? 0) + count);
  charge(perWorkspace, swept.sent + waits.expired + requeued);
  reportOpenTaskAge(await oldestOpenTaskSeconds(nowMs()));
  return { swept: swept.sent, expired: waits.expired, requeued };
}

export const handler = tracedHandler('sweepWebhookOutbox', () => sweepOnce());
