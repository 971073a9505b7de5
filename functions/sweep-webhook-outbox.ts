// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost.
import { chargeWork, flushCostsIfDue } from '#shared/cost/ledger.ts';
import { logger, reportRequestCost } from '#platform/observability.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { type SweepOutcome, sweepOutbox } from '#shared/webhooks/outbox.ts';

/**
 * A sweep is charged to the workspaces whose events it sent, each its share by the number of its events: the reads,
 * the sends and the time. A sweep that finds nothing is the service's own overhead, charged to nobody.
 */
function chargeSweep(outcome: SweepOutcome, ledger: CapacityLedger, status: number, durationMs: number): void {
  for (const [workspaceId, events] of outcome.perWorkspace) {
    const share = events / outcome.sent;
    const capacity = new CapacityLedger();
    capacity.readUnits = ledger.readUnits * share;
    capacity.writeUnits = ledger.writeUnits * share;
    capacity.queueRequests = ledger.queueRequests * share;
    chargeWork({
      workspaceId,
      route: 'sweepWebhookOutbox',
      nowMs: Date.now(),
      status,
      capacity,
      durationMs: durationMs * share,
      apiRequests: 0,
    });
  }
}

export async function sweepOnce(): Promise<{ swept: number }> {
  const ledger = new CapacityLedger();
  const started = performance.now();
  let status = 500;
  let outcome: SweepOutcome | undefined;
  try {
    outcome = await withCapacityLedger(ledger, () => sweepOutbox(Date.now()));
    status = 200;
    if (outcome.sent > 0) logger.info('webhook outbox swept', { swept: outcome.sent });
    return { swept: outcome.sent };
  } finally {
    const durationMs = performance.now() - started;
    reportRequestCost({ route: 'sweepWebhookOutbox', workspaceId: undefined, status, ledger, durationMs });
    if (outcome) chargeSweep(outcome, ledger, status, durationMs);
    await flushCostsIfDue();
  }
}

export const handler = tracedHandler('sweepWebhookOutbox', sweepOnce);
