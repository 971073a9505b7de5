// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost.
import { logger } from '#platform/observability.ts';
import { backgroundFunction, metered, sharesByItems } from '#edge/metering.ts';
import { scheduledJobs } from '#edge/routes/workers.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { type SweepOutcome, sweepOutbox } from '#shared/webhooks/outbox.ts';

const sweepFunction = backgroundFunction(scheduledJobs, 'sweepWebhookOutbox');

export async function sweepOnce(): Promise<{ swept: number }> {
  let outcome: SweepOutcome | undefined;
  const sweep = async () => {
    outcome = await sweepOutbox(Date.now());
    if (outcome.sent > 0) logger.info('webhook outbox swept', { swept: outcome.sent });
    return { swept: outcome.sent };
  };
  // A sweep is charged to the workspaces whose events it sent, each its share by the number of its events. A sweep
  // that finds nothing is the service's own overhead, charged to nobody.
  return metered(
    sweepFunction,
    (measure) => measure(sweep),
    ([unit]) => (outcome && unit ? sharesByItems('sweepWebhookOutbox', unit, outcome.perWorkspace, outcome.sent) : []),
  );
}

export const handler = tracedHandler('sweepWebhookOutbox', sweepOnce);
