// One claimed task, start to end: ack it if it finished before, else check its lease, run its command and queue its ack.
import type { AckBatcher } from './ack-batcher.ts';
import type { AckResult, CommandOutcome, FinishedTasks, NotStartedReason, RunCommand, WritebackTask } from './contract.ts';
import { keepLease, type LeaseKeeping, renewLease } from './lease-keeper.ts';
import { failureMessage, messageOf } from './outcomes.ts';
import type { Lease, RunState } from './run-state.ts';

export interface TaskRunning extends LeaseKeeping {
  readonly run: RunCommand;
  /** A task starts only when more than this much of its lease is left, once renewed. */
  readonly minMarginMs: number;
  readonly state: RunState;
  readonly store: FinishedTasks;
  readonly acks: Pick<AckBatcher, 'queue'>;
}

function notStarted(running: TaskRunning, task: WritebackTask, reason: NotStartedReason): false {
  running.state.summary.notStarted += 1;
  running.report({ type: 'not_started', id: task.id, sku: task.productSku, reason });
  return false;
}

/**
 * Whether the task may start. A lease that ran out on the worker's clock may since be another worker's (a lease
 * belongs to the connector), so it is not even renewed. The renewal is the service's word that the lease is still
 * held and that no newer approval superseded the task: without that word (tried twice), the task is not started,
 * for it may be one the service has cancelled; it is claimed again once its lease runs out.
 */
export async function mayStart(running: TaskRunning, task: WritebackTask, lease: Lease): Promise<boolean> {
  const { state, timers } = running;
  if (state.stopping) return notStarted(running, task, 'stopping');
  if (timers.now() >= lease.deadline) return notStarted(running, task, 'lease_ran_out');
  let renewal = await renewLease(running, task, lease, false);
  if (renewal === 'failed' && !state.stopping && timers.now() < lease.deadline) renewal = await renewLease(running, task, lease, false);
  if (renewal === 'gone') return notStarted(running, task, 'refused');
  if (renewal === 'failed') return notStarted(running, task, 'unconfirmed');
  if (lease.deadline - timers.now() <= running.minMarginMs) return notStarted(running, task, 'no_margin');
  if (state.stopping) return notStarted(running, task, 'stopping');
  return true;
}

/** Runs the command while the lease keeper renews the lease in the background. */
async function runCommand(running: TaskRunning, task: WritebackTask, lease: Lease): Promise<CommandOutcome> {
  const keeper = keepLease(running, task, lease);
  running.report({ type: 'started', id: task.id, sku: task.productSku });
  try {
    return await running.run({ ...task, leaseUntil: lease.leaseUntil });
  } catch (error) {
    return { code: null, signal: null, stderr: `could not run the command: ${messageOf(error)}` };
  } finally {
    // A renewal under way may still learn that the lease is gone.
    await keeper.stop();
  }
}

/** Finished before (a crash or a lost lease came between the command and its ack): ack, do not run again. */
function ackEarlier(running: TaskRunning, task: WritebackTask, lease: Lease, earlier: AckResult): void {
  running.state.summary.recovered += 1;
  running.report({ type: 'recovered', id: task.id, sku: task.productSku });
  running.acks.queue(earlier, lease);
}

export async function runTask(running: TaskRunning, task: WritebackTask, lease: Lease): Promise<void> {
  const { state, report, timers } = running;
  const summary = state.summary;
  const earlier = running.store.finished.get(task.id);
  if (earlier) return ackEarlier(running, task, lease, earlier);
  if (!(await mayStart(running, task, lease))) return;
  const outcome = await runCommand(running, task, lease);
  const sku = task.productSku;
  if (state.abandoning && outcome.code !== 0) {
    // Ended by the worker when its grace ran out: not the command's failure, and perhaps half done. Offered again.
    summary.interrupted += 1;
    report({ type: 'task', id: task.id, sku, result: 'interrupted', error: failureMessage(outcome) });
    return;
  }
  const result: AckResult = outcome.code === 0 ? { id: task.id, ok: true } : { id: task.id, ok: false, error: failureMessage(outcome) };
  // Recorded before any ack is sent: a crash from here on acks it on the next claim instead of running it again.
  running.store.recordFinished(result);
  if (lease.gone || timers.now() >= lease.deadline) {
    summary.leaseLost += 1;
    report({ type: 'task', id: task.id, sku, result: 'lease_lost', ...(result.ok ? {} : { error: result.error }) });
    return;
  }
  if (result.ok) {
    summary.succeeded += 1;
    report({ type: 'task', id: task.id, sku, result: 'applied' });
  } else {
    summary.failed += 1;
    report({ type: 'task', id: task.id, sku, result: 'failed', error: result.error });
  }
  running.acks.queue(result, lease);
}
