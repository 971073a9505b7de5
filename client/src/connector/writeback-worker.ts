// The connector's write-back worker, as importers know it: its parts live in writebacks/, one concern to a file.
export type {
  AckCounts,
  AckResult,
  CommandOutcome,
  FinishedTasks,
  NotStartedReason,
  RunCommand,
  Summary,
  TaskResult,
  Timers,
  Worker,
  WorkerEvent,
  WorkerOptions,
  WritebackApi,
  WritebackTask,
} from './writebacks/contract.ts';
export { startWritebackWorker } from './writebacks/claim-loop.ts';
export { memoryOfFinished } from './writebacks/finished.ts';
export { isLeaseGone } from './writebacks/lease-keeper.ts';
export { failureMessage, MAX_ERROR_LENGTH } from './writebacks/outcomes.ts';
export { realTimers } from './writebacks/timers.ts';
