// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost, ends the second-approval waits that ran out, puts back on the drain queue the committed batches whose message was lost, and reports how long the oldest write-back task has waited.
import { logger, reportOpenTaskAge, reportUndrainedBatches } from '#platform/observability.ts';
import { backgroundFunction, metered, sharesByItems } from '#edge/metering.ts';
import { scheduledJobs } from '#edge/routes/workers.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { expireWaitingApprovals } from '#shared/approvals/expiry.ts';
import { requeueLostDrains } from '#shared/batches/drain-watch.ts';
import { type SweepOutcome, sweepOutbox } from '#shared/webhooks/outbox.ts';
import { oldestOpenTaskSeconds } from '#shared/writebacks/waiting.ts';

const sweepFunction = backgroundFunction(scheduledJobs, 'sweepWebhookOutbox');

export async function sweepOnce(nowMs: () => number = Date.now): Promise<{ swept: number; expired: number; requeued: number }> {
  let outcome: SweepOutcome | undefined;
  const sweep = async () => {
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
    outcome = { sent: swept.sent + waits.expired + requeued, perWorkspace };
    reportOpenTaskAge(await oldestOpenTaskSeconds(nowMs()));
    return { swept: swept.sent, expired: waits.expired, requeued };
  };
  // A sweep is charged to the workspaces whose events it sent, each its share by the number of its events. A sweep
  // that finds nothing is the service's own overhead, charged to nobody.
  return metered(
    sweepFunction,
    (measure) => measure(sweep),
    ([unit]) => (outcome && unit ? sharesByItems('sweepWebhookOutbox', unit, outcome.perWorkspace, outcome.sent) : []),
  );
}

export const handler = tracedHandler('sweepWebhookOutbox', () => sweepOnce());
