// The progress display's text and where its lines go; never when, which is the clock's business.
import { describe, expect, it } from 'vitest';
import { progressDisplay, progressText, summaryText, waitText } from './progress.ts';

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

  it('sums up the counts per kind, skipped over cap, the drain time and when prices reflected the batch', () => {
    const counts = { product: 3, customer: 2, quote: 0, order: 1500 };
    const summary = { batchId: 'b_1', dryRun: false, counts, skippedOverCap: 4, drainMs: 75_000, pricesMs: 90_000, status: undefined };
    expect(summaryText(summary)).toBe(
      'batch b_1 drained: 3 products, 2 customers, 0 quotes, 1,500 orders staged; 4 skipped over cap; drained in 1 min 15 s; ' +
        'prices reflect it 1 min 30 s after the commit',
    );
    expect(summaryText({ ...summary, pricesMs: undefined })).toMatch(
      /drained in 1 min 15 s \(prices follow when its bands are recomputed\)$/,
    );
  });

  it('says how far the drain has got, then that bands and prices are being recomputed', () => {
    const batch = { recordCount: 50_000, skippedOverCap: 0 };
    expect(waitText({ ...batch, status: 'committed' }, 1_000)).toBe('draining: 0 of 50,000 records stored · 1 s since the commit');
    expect(waitText({ ...batch, status: 'draining', drainedCount: 12_000 }, 9_000)).toBe(
      'draining: 12,000 of 50,000 records stored · 9 s since the commit',
    );
    expect(waitText({ ...batch, status: 'drained', drainedCount: 50_000 }, 43_000)).toBe(
      'drained; recomputing bands and prices · 43 s since the commit',
    );
  });

  it('writes a plain waiting line every few seconds to a log, however often the status is read', () => {
    let clock = 0;
    const written: string[] = [];
    const log = progressDisplay({ write: (text: string) => written.push(text) }, { now: () => clock, everyMs: 5_000 });
    for (clock = 0; clock <= 20_000; clock += 1_000) log.waiting({ status: 'draining', recordCount: 10, skippedOverCap: 0 }, clock);
    expect(written).toEqual([5, 10, 15, 20].map((seconds) => `draining: 0 of 10 records stored · ${seconds} s since the commit\n`));
  });
});
