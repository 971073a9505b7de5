// The worker's local journal: what survives a crash, a torn last line, and a file that is not a journal.
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOURNAL_KEEP_MS, openJournal, readJournal } from './writeback-journal.ts';

const journalPath = () => join(mkdtempSync(join(tmpdir(), 'writeback-journal-')), 'tasks.journal');

describe('the write-back journal', () => {
  it('hands a reopened journal the finished tasks that were not acked, and not those that were', () => {
    const path = journalPath();
    const first = openJournal(path);
    first.recordFinished({ id: 'wb_1', ok: true });
    first.recordFinished({ id: 'wb_2', ok: false, error: 'Price list locked' });
    first.recordFinished({ id: 'wb_3', ok: true });
    first.recordAcked(['wb_1']);
    // No close: a crash leaves what was written.
    const second = openJournal(path);
    expect([...second.finished.values()]).toEqual([
      { id: 'wb_2', ok: false, error: 'Price list locked' },
      { id: 'wb_3', ok: true },
    ]);
    second.close();
  });

  it('ignores a torn last line, and appends whole lines after it', () => {
    const path = journalPath();
    const first = openJournal(path);
    first.recordFinished({ id: 'wb_1', ok: true });
    first.close();
    appendFileSync(path, '{"t":"finished","at":"2026-');
    const second = openJournal(path);
    expect([...second.finished.keys()]).toEqual(['wb_1']);
    second.recordFinished({ id: 'wb_2', ok: true });
    second.close();
    expect([...openJournal(path).finished.keys()]).toEqual(['wb_1', 'wb_2']);
    expect(
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .every((line) => JSON.parse(line)),
    ).toBe(true);
  });

  it('refuses a file whose damage is not a torn last line', () => {
    const path = journalPath();
    writeFileSync(path, 'name,price\nA,1\n{"t":"acked","id":"wb_1"}\n');
    expect(() => openJournal(path)).toThrow(/line 1 is not a journal line/);
  });

  it('forgets a finished task after a week unacked', () => {
    const now = Date.parse('2026-11-27T00:00:00.000Z');
    const line = (at: number, id: string) => JSON.stringify({ t: 'finished', at: new Date(at).toISOString(), result: { id, ok: true } });
    const text = `${line(now - JOURNAL_KEEP_MS - 1, 'wb_old')}\n${line(now - 1000, 'wb_new')}\n`;
    expect([...readJournal(text, now).keys()]).toEqual(['wb_new']);
  });
});
