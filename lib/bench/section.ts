// What a bench section is: its row in the table (id, heading, targets, what it measures, the lines it prints, the figures it records).
import type { LocalStack } from '#lib/local/stack.ts';

export type Targets = Readonly<Record<string, number>>;

export interface BenchContext {
  /** The local stack the sections share, started by the first section that asks for it. */
  readonly stack: () => Promise<LocalStack>;
  /** The figures recorded by the sections that ran before. */
  readonly results: Readonly<Record<string, unknown>>;
  /** What follows the section's name on the command line (`npm run bench -- scale --price-calls 2000`). */
  readonly args: readonly string[];
}

export interface SectionRow<F, T extends Targets> {
  readonly id: string;
  /**
   * `own-process` sections run after the shared local stack has stopped: they start what they need in a process
   * of their own. The rest run in this one, in the table's order.
   */
  readonly where: 'in-process' | 'own-process';
  /** Printed before it measures, exactly as given (with the blank line that sets it apart, if any). */
  readonly heading: string;
  /** What the figures are held to; the lines print each beside its verdict. */
  readonly targets: T;
  readonly measure: (context: BenchContext, targets: T) => Promise<F>;
  readonly lines: (figures: F, targets: T) => string[];
  /** The figures as they go into the JSON line that closes the run; it may refuse a run that failed. */
  readonly record: (figures: F) => Record<string, unknown>;
}

export type BenchSection = SectionRow<unknown, Targets>;

/** A row with its figures' type checked against its own functions, then kept in the table beside the others. */
export function section<F, const T extends Targets>(row: SectionRow<F, T>): BenchSection {
  return row as unknown as BenchSection;
}

export function verdict(ok: boolean): string {
  return ok ? 'meets target' : 'MISSES TARGET';
}
