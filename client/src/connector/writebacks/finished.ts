// Results whose command finished but whose ack the service has not confirmed: kept in memory, and acked at start from a journal.
import type { AckResult, FinishedTasks, Report, WritebackApi } from './contract.ts';
import { messageOf } from './outcomes.ts';
import { countAcks, type RunState } from './run-state.ts';

/** Finished results kept in memory, for a worker without a journal: they last as long as the process. */
export function memoryOfFinished(): FinishedTasks {
  const finished = new Map<string, AckResult>();
  return {
    finished,
    recordFinished: (result) => void finished.set(result.id, result),
    recordAcked: (ids) => ids.forEach((id) => finished.delete(id)),
  };
}

export interface JournalAcking {
  readonly api: Pick<WritebackApi, 'ackWritebacks'>;
  readonly store: FinishedTasks;
  readonly state: RunState;
  readonly report: Report;
}

/** Acks what a journal kept from an earlier run, one call each so that each answer is known. */
export async function ackJournal({ api, store, state, report }: JournalAcking): Promise<void> {
  for (const result of [...store.finished.values()]) {
    if (state.stopping) return;
    try {
      const counts = await api.ackWritebacks([result]);
      countAcks(state.summary, counts);
      // An expired lease keeps the result for the task's next claim; anything else is settled.
      if (counts.expired === 0) store.recordAcked([result.id]);
      if (counts.applied + counts.failed > 0) {
        state.summary.recovered += 1;
        report({ type: 'recovered', id: result.id });
      }
    } catch (error) {
      report({ type: 'ack_failed', count: 1, error: messageOf(error) });
    }
  }
}
