// The loader's progress display on stderr, through staging and the wait for the drain and the bands: one line rewritten in place on a terminal, plain periodic lines elsewhere.
import type { EntityKind } from '../../../shared/records/schema.ts';
import type { LoadBatchStatus, LoadSummary } from './load.ts';

export interface ProgressFigures {
  readonly records: number;
  readonly elapsedMs: number;
  /** Bytes of the files read so far and in all: a streamed file's record count is not known before its end. */
  readonly bytesRead: number;
  readonly totalBytes: number;
}

const number = new Intl.NumberFormat('en-US');

function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ${seconds % 60} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function progressText({ records, elapsedMs, bytesRead, totalBytes }: ProgressFigures, verb = 'sent'): string {
  const parts = [`${number.format(records)} records ${verb}`];
  if (elapsedMs > 0) parts.push(`${number.format(Math.round((records * 1000) / elapsedMs))}/s`);
  if (totalBytes > 0 && bytesRead > 0) {
    const fraction = Math.min(1, bytesRead / totalBytes);
    parts.push(`${Math.floor(fraction * 100)}%`);
    if (fraction < 1 && elapsedMs > 0) parts.push(`about ${duration((elapsedMs * (1 - fraction)) / fraction)} left`);
  }
  return parts.join(' · ');
}

/** What the batch is doing while the loader waits on it after the commit. */
export function waitText(status: LoadBatchStatus, elapsedMs: number): string {
  const since = `${duration(elapsedMs)} since the commit`;
  if (status.status === 'committed' || status.status === 'draining') {
    const stored = `${number.format(status.drainedCount ?? 0)} of ${number.format(status.recordCount)} records stored`;
    return `draining: ${stored} · ${since}`;
  }
  if (status.status === 'drained' && !status.bandsRecomputedAt) return `drained; recomputing bands and prices · ${since}`;
  return `${status.status} · ${since}`;
}

const kindsInOrder: readonly EntityKind[] = ['product', 'customer', 'quote', 'order'];

export function summaryText(summary: LoadSummary): string {
  const kinds = kindsInOrder.map((kind) => `${number.format(summary.counts[kind])} ${kind}s`).join(', ');
  if (summary.dryRun) return `dry run: ${kinds} valid; nothing sent`;
  const prices =
    summary.pricesMs === undefined
      ? ' (prices follow when its bands are recomputed)'
      : `; prices reflect it ${duration(summary.pricesMs)} after the commit`;
  return (
    `batch ${summary.batchId} drained: ${kinds} staged; ${number.format(summary.skippedOverCap)} skipped over cap; ` +
    `drained in ${duration(summary.drainMs)}${prices}`
  );
}

export interface ProgressDisplay {
  update(figures: ProgressFigures): void;
  /** The batch's status while the loader waits for its drain and its bands. */
  waiting(status: LoadBatchStatus, elapsedMs: number): void;
  /** Clears a rewritten line, so that what is printed next starts on a clean line. */
  end(): void;
}

/** A terminal sees the line at most 10 times a second; a log gets a line every `everyMs` (default 5 s). */
export function progressDisplay(
  out: { write(text: string): unknown; isTTY?: boolean },
  { now = Date.now, everyMs = 5_000, verb = 'sent' }: { now?: () => number; everyMs?: number; verb?: string } = {},
): ProgressDisplay {
  const tty = out.isTTY === true;
  const interval = tty ? 100 : everyMs;
  // A log's first line waits a whole interval, so that a short load prints none; a terminal shows it at once.
  let last = tty ? -Infinity : now();
  let shown = false;
  const show = (text: () => string) => {
    const at = now();
    if (at - last < interval) return;
    last = at;
    shown = true;
    out.write(tty ? `\r\x1b[2K${text()}` : `${text()}\n`);
  };
  return {
    update: (figures) => show(() => progressText(figures, verb)),
    waiting: (status, elapsedMs) => show(() => waitText(status, elapsedMs)),
    end() {
      if (tty && shown) out.write('\r\x1b[2K');
    },
  };
}
