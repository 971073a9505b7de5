// The write-back worker's local journal: tasks whose command finished but whose ack the service has not confirmed, kept across a crash.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AckResult } from './writeback-worker.ts';

/** A finished task is forgotten after this long unacked: its lease has long run out, and a newer approval or an operator has dealt with it. */
export const JOURNAL_KEEP_MS = 7 * 24 * 3600 * 1000;

/** One line of the journal: a task's command finished with this result, or the service confirmed its ack. */
type JournalLine = { t: 'finished'; at: string; result: AckResult } | { t: 'acked'; id: string };

export interface TaskJournal {
  /** Finished tasks not yet acked, by id: a restarted worker acks these rather than running them again. */
  readonly finished: ReadonlyMap<string, AckResult>;
  /** Written and flushed to disk before the call returns: a crash after it cannot lose the result. */
  recordFinished(result: AckResult): void;
  recordAcked(ids: readonly string[]): void;
  close(): void;
}

function parseLine(text: string): JournalLine | undefined {
  try {
    const line = JSON.parse(text) as Partial<JournalLine> | null;
    if (line?.t === 'acked' && typeof line.id === 'string') return line as JournalLine;
    if (line?.t === 'finished' && typeof line.at === 'string' && typeof line.result?.id === 'string') return line as JournalLine;
  } catch {
    // Not JSON: see readJournal.
  }
  return undefined;
}

/**
 * The finished-but-unacked tasks a journal holds. A crash can tear only the last line (each line is written whole and
 * flushed before the next); a torn last line is ignored. A bad line elsewhere means the file is not a journal.
 */
export function readJournal(text: string, nowMs: number): Map<string, { at: string; result: AckResult }> {
  const lines = text.split('\n');
  const finished = new Map<string, { at: string; result: AckResult }>();
  lines.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const line = parseLine(raw);
    if (!line) {
      if (index === lines.length - 1) return;
      throw new Error(`the journal's line ${index + 1} is not a journal line: is this the right file?`);
    }
    if (line.t === 'acked') finished.delete(line.id);
    else if (nowMs - Date.parse(line.at) < JOURNAL_KEEP_MS) finished.set(line.result.id, { at: line.at, result: line.result });
  });
  return finished;
}

function writeDurably(fd: number, text: string): void {
  writeSync(fd, text);
  fsyncSync(fd);
}

/**
 * Opens the journal at `path`, creating it. It is rewritten at once with only what is still unacked (through a new
 * file renamed over it, so a crash leaves the old one or the new one), which also drops a torn last line; then it is
 * appended to, one flushed line at a time.
 */
export function openJournal(path: string, now: () => number = Date.now): TaskJournal {
  const entries = existsSync(path) ? readJournal(readFileSync(path, 'utf8'), now()) : new Map();
  const fresh = join(dirname(path), `.${Date.now()}-${process.pid}.journal`);
  const rewrite = openSync(fresh, 'w');
  writeDurably(rewrite, [...entries.values()].map(({ at, result }) => `${JSON.stringify({ t: 'finished', at, result })}\n`).join(''));
  closeSync(rewrite);
  renameSync(fresh, path);
  // The rename itself is made durable by flushing the folder.
  const folder = openSync(dirname(path), 'r');
  fsyncSync(folder);
  closeSync(folder);
  const fd = openSync(path, 'a');
  const finished = new Map([...entries].map(([id, { result }]) => [id, result]));
  return {
    finished,
    recordFinished(result) {
      writeDurably(fd, `${JSON.stringify({ t: 'finished', at: new Date(now()).toISOString(), result })}\n`);
      finished.set(result.id, result);
    },
    recordAcked(ids) {
      if (ids.length === 0) return;
      writeDurably(fd, ids.map((id) => `${JSON.stringify({ t: 'acked', id })}\n`).join(''));
      for (const id of ids) finished.delete(id);
    },
    close() {
      closeSync(fd);
    },
  };
}
