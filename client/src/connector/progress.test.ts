// The progress display's text and where its lines go; never when, which is the clock's business.
import { describe, expect, it } from 'vitest';
import { progressDisplay, progressText, summaryText } from './progress.ts';

describe('the load progress display', () => {
  it('says records sent, the rate, how far through the files, and the time left', () => {
    expect(progressText({ records: 12000, elapsedMs: 4000, bytesRead: 250, totalBytes: 1000 })).toBe(
      '12,000 records sent · 3,000/s · 25% · about 12 s left',
    );
  });

  it('rewrites one line on a terminal, and writes whole lines elsewhere', () => {
    let clock = 0;
    const written: string[] = [];
    const tty = progressDisplay({ isTTY: true, write: (text: string) => written.push(text) }, { now: () => clock });
    tty.update({ records: 1, elapsedMs: 1000, bytesRead: 1, totalBytes: 1 });
    tty.end();
    expect(written).toEqual(['\r\x1b[2K1 records sent · 1/s · 100%', '\r\x1b[2K']);
    written.length = 0;
    const log = progressDisplay({ write: (text: string) => written.push(text) }, { now: () => clock, everyMs: 10 });
    clock = 10;
    log.update({ records: 2, elapsedMs: 1000, bytesRead: 1, totalBytes: 2 });
    log.end();
    expect(written).toEqual(['2 records sent · 2/s · 50% · about 1 s left\n']);
  });

  it('sums up the counts per kind, skipped over cap and the drain time', () => {
    const counts = { product: 3, customer: 2, quote: 0, order: 1500 };
    expect(summaryText({ batchId: 'b_1', dryRun: false, counts, skippedOverCap: 4, drainMs: 75_000, status: undefined })).toBe(
      'batch b_1 drained: 3 products, 2 customers, 0 quotes, 1,500 orders staged; 4 skipped over cap; drained in 1 min 15 s',
    );
  });
});
