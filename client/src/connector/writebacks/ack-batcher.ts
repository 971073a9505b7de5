// The write-back worker's acks: finished results wait up to the ack delay to go together, one call at a time.
import type { AckResult, FinishedTasks, Report, Summary, Timers, WritebackApi } from './contract.ts';
import { messageOf } from './outcomes.ts';
import { countAcks, type Lease } from './run-state.ts';

/** The most results one ack call carries. */
export const ACK_BATCH_MAX = 500;

export interface AckBatching {
  readonly api: Pick<WritebackApi, 'ackWritebacks'>;
  readonly timers: Timers;
  readonly store: FinishedTasks;
  readonly summary: Summary;
  readonly report: Report;
  readonly delayMs: number;
}

export interface AckBatcher {
  /** Queues a result; the first of a group starts the delay after which the group is sent. */
  queue(result: AckResult, lease: Lease): void;
  /** Sends what waits now, after any send under way; resolves once all are answered. */
  flush(): Promise<void>;
}

/** The batcher's own state: the waiting results, the delay under way, and the chain that keeps one call at a time. */
interface AckQueue {
  readonly waiting: Array<{ result: AckResult; lease: Lease }>;
  timer: { wake(): void } | undefined;
  chain: Promise<void>;
}

async function sendWaiting(batching: AckBatching, waiting: AckQueue['waiting']): Promise<void> {
  const { api, timers, store, summary, report } = batching;
  while (waiting.length > 0) {
    const group = waiting.splice(0, ACK_BATCH_MAX);
    // A lease that ran out while its ack waited would count as expired: the result is kept for the task's next claim.
    const live = group.filter(({ lease }) => !lease.gone && timers.now() < lease.deadline).map(({ result }) => result);
    if (live.length === 0) continue;
    try {
      const counts = await api.ackWritebacks(live);
      countAcks(summary, counts);
      store.recordAcked(live.map((result) => result.id));
      report({ type: 'acked', counts });
    } catch (error) {
      // Kept as finished: the next claim of these tasks acks them rather than running them again.
      summary.ackFailed += live.length;
      report({ type: 'ack_failed', count: live.length, error: messageOf(error) });
    }
  }
}

export function ackBatcher(batching: AckBatching): AckBatcher {
  const state: AckQueue = { waiting: [], timer: undefined, chain: Promise.resolve() };
  const send = () => sendWaiting(batching, state.waiting);
  return {
    queue(result, lease) {
      state.waiting.push({ result, lease });
      if (state.timer) return;
      const wait = batching.timers.sleep(batching.delayMs);
      state.timer = wait;
      void wait.done.then(() => {
        state.timer = undefined;
        state.chain = state.chain.then(send);
      });
    },
    async flush() {
      if (state.timer) {
        state.timer.wake();
        // The timer's callback queues the send on the chain: let it run first.
        await Promise.resolve();
        await Promise.resolve();
      }
      state.chain = state.chain.then(send);
      await state.chain;
    },
  };
}
