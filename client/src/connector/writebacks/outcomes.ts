// How a task's end and a failed call read in an ack or an event: the command's own words, or how it ended.
import type { CommandOutcome } from './contract.ts';

export const MAX_ERROR_LENGTH = 1_000;

/** What a failed ack reports: the command's own words, or how it ended when it said nothing. */
export function failureMessage(outcome: CommandOutcome): string {
  const stderr = outcome.stderr.trim();
  if (stderr) return stderr.slice(0, MAX_ERROR_LENGTH);
  return outcome.code === null ? `killed by signal ${outcome.signal ?? 'unknown'}` : `exit code ${outcome.code}`;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
