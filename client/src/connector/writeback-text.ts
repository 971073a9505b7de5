// How the write-back worker's events and summary read in a terminal (without --json).
import type { Summary, WorkerEvent } from './writeback-worker.ts';

const notStartedText = {
  lease_ran_out: 'its lease ran out before it could start',
  refused: 'the service would not renew its lease (lost, or superseded by a newer approval)',
  unconfirmed: 'the service did not answer the renewal of its lease (offered again when its lease runs out)',
  no_margin: 'too little of its lease was left (--min-lease-margin)',
  stopping: 'stopping (offered again when its lease runs out)',
} as const;

export function eventText(event: WorkerEvent): string | undefined {
  switch (event.type) {
    case 'task':
      if (event.result === 'applied') return `${event.id} ${event.sku} ok`;
      if (event.result === 'failed') return `${event.id} ${event.sku} failed: ${event.error}`;
      if (event.result === 'interrupted') return `${event.id} ${event.sku} ended after the grace: not acked (offered again)`;
      return `${event.id} ${event.sku} lease lost: not acked; its result is kept so that its next claim acks it`;
    case 'not_started':
      return `${event.id} ${event.sku} not started: ${notStartedText[event.reason]}`;
    case 'recovered':
      return `${event.id} ${event.sku ?? ''} finished earlier: acked without running again`.replace('  ', ' ');
    case 'lease_lost':
      return `${event.id} lease lost while its command runs; it will not be acked`;
    case 'extend_failed':
      return `${event.id} could not extend its lease: ${event.error}`;
    case 'acked':
      return `acked: ${event.counts.applied} applied, ${event.counts.failed} failed, ${event.counts.expired} expired, ${event.counts.ignored} ignored`;
    case 'ack_failed':
      return `ack of ${event.count} tasks failed: ${event.error} (kept: their next claim acks them)`;
    case 'stopping':
      return 'stopping: running commands finish within the grace and are acked; signal again to exit at once';
    default:
      // Claims, starts, idle waits and extensions are noise in text; --json has them.
      return undefined;
  }
}

export function summaryText(summary: Summary): string {
  const { acks } = summary;
  return (
    `${summary.claimed} claimed: ${summary.succeeded} ok, ${summary.failed} failed, ${summary.leaseLost} lease lost, ` +
    `${summary.notStarted} not started, ${summary.recovered} finished earlier, ${summary.interrupted} interrupted; ` +
    `acked ${acks.applied} applied, ${acks.failed} failed, ${acks.expired} expired, ${acks.ignored} ignored` +
    (summary.ackFailed ? `; ${summary.ackFailed} not acked (ack failed)` : '')
  );
}
