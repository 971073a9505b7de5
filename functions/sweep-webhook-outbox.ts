// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost.
import { CapacityLedger } from '#platform/meter.ts';
import { logger } from '#platform/observability.ts';
import { backgroundFunction, metered, type MeteredUnit, type WorkShare } from '#edge/metering.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { type SweepOutcome, sweepOutbox } from '#shared/webhooks/outbox.ts';

const sweepFunction = backgroundFunction('sweepWebhookOutbox');

/**
 * A sweep is charged to the workspaces whose events it sent, each its share by the number of its events: the reads,
 * the sends and the time. A sweep that finds nothing is the service's own overhead, charged to nobody.
 */
function sweepShares(outcome: SweepOutcome, sweep: MeteredUnit): WorkShare[] {
  return [...outcome.perWorkspace].map(([workspaceId, events]) => {
    const share = events / outcome.sent;
    const capacity = new CapacityLedger();
    capacity.readUnits = sweep.ledger.readUnits * share;
    capacity.writeUnits = sweep.ledger.writeUnits * share;
    capacity.queueRequests = sweep.ledger.queueRequests * share;
    return {
      workspaceId,
      route: 'sweepWebhookOutbox',
      nowMs: Date.now(),
      status: sweep.status,
      capacity,
      durationMs: sweep.durationMs * share,
      apiRequests: 0,
    };
  });
}

export async function sweepOnce(): Promise<{ swept: number }> {
  let outcome: SweepOutcome | undefined;
  const sweep = async () => {
    outcome = await sweepOutbox(Date.now());
    if (outcome.sent > 0) logger.info('webhook outbox swept', { swept: outcome.sent });
    return { swept: outcome.sent };
  };
  return metered(
    sweepFunction,
    (measure) => measure(sweep),
    ([unit]) => (outcome && unit ? sweepShares(outcome, unit) : []),
  );
}

export const handler = tracedHandler('sweepWebhookOutbox', sweepOnce);
