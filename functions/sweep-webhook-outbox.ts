// The outbox sweeper, run on a schedule: sends the webhook events whose hand-off to the queue after commit was lost.
import { logger, reportRequestCost } from '../shared/observability.ts';
import { CapacityLedger, withCapacityLedger } from '../shared/table/capacity.ts';
import { sweepOutbox } from '../shared/webhooks/outbox.ts';

export async function handler(): Promise<{ swept: number }> {
  const ledger = new CapacityLedger();
  const started = performance.now();
  let status = 500;
  try {
    const swept = await withCapacityLedger(ledger, () => sweepOutbox(Date.now()));
    status = 200;
    if (swept > 0) logger.info('webhook outbox swept', { swept });
    return { swept };
  } finally {
    reportRequestCost({ route: 'sweepWebhookOutbox', workspaceId: undefined, status, ledger, durationMs: performance.now() - started });
  }
}
