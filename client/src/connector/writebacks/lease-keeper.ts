// The write-back worker's leases: renewing one for a full term, and keeping it renewed while a task's command runs.
import type { Report, Timers, WritebackApi, WritebackTask } from './contract.ts';
import { messageOf } from './outcomes.ts';
import type { Lease } from './run-state.ts';

export interface LeaseKeeping {
  readonly api: Pick<WritebackApi, 'extendWriteback'>;
  readonly timers: Timers;
  readonly report: Report;
  readonly leaseSeconds: number;
}

/** The service's answer to an extend whose lease is gone (or whose task a newer approval superseded); matched by shape so any client's error fits. */
export function isLeaseGone(error: unknown): boolean {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return status === 409 && code === 'writeback_lease_expired';
}

/**
 * Renews the lease for a full term; 'gone' when the service refuses (lost, or superseded). While the command runs
 * (`running`), the service renews even a task a newer approval superseded, and holds the newer task back until this
 * one is acked: cancelling it then would not stop the command.
 */
export async function renewLease(
  keeping: LeaseKeeping,
  task: WritebackTask,
  lease: Lease,
  running: boolean,
): Promise<'renewed' | 'gone' | 'failed'> {
  const { api, timers, report, leaseSeconds } = keeping;
  const sentAt = timers.now();
  try {
    const answer = await api.extendWriteback(task.id, running ? { leaseSeconds, running } : { leaseSeconds });
    lease.deadline = Math.max(lease.deadline, sentAt + leaseSeconds * 1000);
    lease.leaseUntil = answer.task.leaseUntil;
    report({ type: 'extended', id: task.id });
    return 'renewed';
  } catch (error) {
    if (isLeaseGone(error)) {
      lease.gone = true;
      return 'gone';
    }
    report({ type: 'extend_failed', id: task.id, error: messageOf(error) });
    return 'failed';
  }
}

/**
 * Renews the lease in the background every third of it (leaving two for a slow or retried renewal) until the
 * service refuses it or `stop` is called. `stop` resolves once a renewal under way has its answer, for that answer
 * may still be that the lease is gone.
 */
export function keepLease(keeping: LeaseKeeping, task: WritebackTask, lease: Lease): { stop(): Promise<unknown> } {
  let inFlight: Promise<unknown> = Promise.resolve();
  const cancel = keeping.timers.every((keeping.leaseSeconds * 1000) / 3, () => {
    inFlight = inFlight.then(async () => {
      if (lease.gone) return;
      if ((await renewLease(keeping, task, lease, true)) === 'gone') {
        cancel();
        keeping.report({ type: 'lease_lost', id: task.id });
      }
    });
  });
  return {
    stop() {
      cancel();
      return inFlight;
    },
  };
}
