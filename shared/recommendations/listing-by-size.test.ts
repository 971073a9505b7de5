// Unit tests of the sort by size of change: the ordering by change read from both ends and merged, page by page as cursors carry it.
import { describe, expect, it } from 'vitest';
import { type ChangeListRow, type End, type Ends, endsOfCursor, type ReadEnd, SizeMerge } from './listing-by-size.ts';
import { noNumberSortKey, skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { changeSortKey } from './listing.ts';

interface Row extends ChangeListRow {
  readonly change: number;
}

const row = (sku: string, change: number): Row => ({ sku, change, listSk: changeSortKey(change, sku) });

const byKey = (a: Row, b: Row) => Buffer.compare(Buffer.from(a.listSk), Buffer.from(b.listSk));

/** The ordering by change as DynamoDB reads it, with a count of the rows each read returns. */
function changeList(rows: readonly Row[]): { read: ReadEnd<Row>; rowsRead: Record<End, number> } {
  const sorted = [...rows].sort(byKey);
  const rowsRead = { top: 0, bottom: 0 };
  const read: ReadEnd<Row> = async (end, from, limit) => {
    const beyond =
      end === 'top'
        ? sorted.filter((r) => from === undefined || r.listSk < from.sortKey).reverse()
        : sorted.filter((r) => from === undefined || r.listSk > from.sortKey);
    const rows = beyond.slice(0, limit);
    rowsRead[end] += rows.length;
    // As DynamoDB does, a read that fills its limit says there may be more, whether or not there is.
    return { rows, more: rows.length === limit };
  };
  return { read, rowsRead };
}

/** Largest change first; at equal size the rise first; equal rises as read from the top, equal cuts as from the bottom. */
function expectedOrder(rows: readonly Row[]): string[] {
  return [...rows]
    .sort((a, b) => {
      if (Math.abs(a.change) !== Math.abs(b.change)) return Math.abs(b.change) - Math.abs(a.change);
      if (a.change >= 0 !== b.change >= 0) return a.change >= 0 ? -1 : 1;
      return a.change >= 0 ? byKey(b, a) : byKey(a, b);
    })
    .map((r) => r.sku);
}

/** Every row, `pageSize` at a time, each page a fresh merge from where the last one left the ends, as a cursor does. */
async function everyPage(rows: readonly Row[], pageSize: number, chunk = pageSize + 1): Promise<string[][]> {
  const { read } = changeList(rows);
  const pages: string[][] = [];
  let ends: Ends = {};
  for (;;) {
    const taken = await new SizeMerge(read, ends, chunk).take(pageSize);
    if (taken.length > 0) pages.push(taken.map((t) => t.row.sku));
    if (taken.length < pageSize) return pages;
    ends = (taken.at(-1) as { ends: Ends }).ends;
  }
}

/** A deterministic catalogue with many ties: sizes from a few values, either sign, some unchanged. */
function tiedCatalogue(count: number, seed: number): Row[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, (_, index) => {
    const size = [0, 2.5, 5, 10, 12.25, 40][Math.floor(next() * 6)] as number;
    return row(`SKU-${index + 1}`, next() < 0.5 ? -size : size);
  });
}

describe('the sort by size of change', () => {
  it('puts the largest change first whichever way it goes', async () => {
    const rows = [row('UP-5', 5), row('DOWN-20', -20), row('UP-12', 12.5), row('NONE', 0), row('DOWN-1', -1)];
    expect((await everyPage(rows, 10)).flat()).toEqual(['DOWN-20', 'UP-12', 'UP-5', 'DOWN-1', 'NONE']);
  });

  it('puts a rise before a cut of the same size, and equal changes as the list by change reads them from their end', async () => {
    const rows = [row('A', 10), row('B', 10), row('C', -10), row('D', -10), row('E', 0), row('F', 0), row('G', -30)];
    // Rises as the list by change, highest first, shows them (CLIP-10 before CLIP-2); cuts as lowest first shows them.
    expect((await everyPage(rows, 10)).flat()).toEqual(['G', 'B', 'A', 'C', 'D', 'F', 'E']);
    expect(expectedOrder(rows)).toEqual(['G', 'B', 'A', 'C', 'D', 'F', 'E']);
  });

  it('lists a run of equal cuts in SKU order as a person reads them, as the list by change does', async () => {
    const rows = [row('CLIP-10', -5), row('CLIP-2', -5), row('CLIP-1', -5)];
    expect(skuSortKey('CLIP-2') < skuSortKey('CLIP-10')).toBe(true);
    expect((await everyPage(rows, 2)).flat()).toEqual(['CLIP-1', 'CLIP-2', 'CLIP-10']);
  });

  it('lists every row once and in order across pages of any size, where the two ends meet and through ties', async () => {
    for (const [count, seed] of [
      [1, 1],
      [2, 2],
      [37, 3],
      [120, 4],
    ] as const) {
      const rows = tiedCatalogue(count, seed);
      for (const pageSize of [1, 2, 3, 7, 50]) {
        for (const chunk of [1, 4, pageSize + 1]) {
          const pages = await everyPage(rows, pageSize, chunk);
          expect(pages.flat(), `${count} rows, pages of ${pageSize}, reads of ${chunk}`).toEqual(expectedOrder(rows));
          expect(pages.slice(0, -1).every((page) => page.length === pageSize)).toBe(true);
        }
      }
    }
  });

  it('lists rows that all rise, or all fall, from the one end that holds them', async () => {
    const rises = Array.from({ length: 9 }, (_, index) => row(`R-${index}`, index + 1));
    const cuts = Array.from({ length: 9 }, (_, index) => row(`C-${index}`, -(index + 1)));
    expect((await everyPage(rises, 4)).flat()).toEqual(expectedOrder(rises));
    expect((await everyPage(cuts, 4)).flat()).toEqual(expectedOrder(cuts));
  });

  it('takes nothing from an empty list and says it is done', async () => {
    const merge = new SizeMerge(changeList([]).read, {}, 51);
    expect(await merge.take(51)).toEqual([]);
    expect(merge.done).toBe(true);
  });

  it('reads each end half a page at a time, and at most two pages of rows for a page when every change goes one way', async () => {
    const rises = Array.from({ length: 200 }, (_, index) => row(`R-${index}`, index + 1));
    const { read, rowsRead } = changeList(rises);
    const taken = await new SizeMerge(read, {}, 51).take(51);
    expect(taken).toHaveLength(51);
    // The top end gives every row; the bottom end reads its first half page and is never taken from.
    expect(rowsRead.bottom).toBe(26);
    expect(rowsRead.top + rowsRead.bottom).toBeLessThanOrEqual(2 * 51);
    const balanced = changeList([...rises.slice(0, 100), ...Array.from({ length: 100 }, (_, index) => row(`C-${index}`, -(index + 1.5)))]);
    await new SizeMerge(balanced.read, {}, 51).take(51);
    expect(balanced.rowsRead.top + balanced.rowsRead.bottom).toBeLessThanOrEqual(51 + 2);
  });
});

describe("a cursor's two ends", () => {
  const top = { sku: 'LAMP-2', sortKey: changeSortKey(12.5, 'LAMP-2') };
  const bottom = { sku: 'BOLT-1', sortKey: changeSortKey(-3, 'BOLT-1') };

  it('are read when they name rows of the list by change, the bottom below the top', () => {
    expect(endsOfCursor({ top, bottom })).toEqual({ top, bottom });
    expect(endsOfCursor({ bottom })).toEqual({ bottom });
    expect(endsOfCursor({})).toEqual({});
  });

  it('name nothing when a key is not the named SKU at some change, or the bottom is not below the top', () => {
    for (const ends of [
      { top: { sku: 'LAMP-2', sortKey: changeSortKey(12.5, 'LAMP-3') } },
      { top: { sku: 'LAMP-2', sortKey: noNumberSortKey('LAMP-2') } },
      { top: { sku: 'LAMP-2', sortKey: skuSortKey('LAMP-2') } },
      { bottom: { sku: 'X', sortKey: 'C12#x#X' } },
      { top: bottom, bottom: top },
      { top, bottom: top },
    ]) {
      expect(endsOfCursor(ends), JSON.stringify(ends)).toBeUndefined();
    }
  });
});
