// The console's list by size of change, largest either way first: the ordering by change read from both ends at once and merged, so that it needs no rows of its own.
import type { ListPosition } from './catalogue.ts';
import { numberSortKeyParts, skuSortKey } from '#platform/table/listing-sort-keys.ts';
import { changeOfSortKey } from './listing.ts';
import { keyOrder } from './listing-shards.ts';

/** The two ends of the ordering by change: the top reads the largest rises down, the bottom the largest cuts up. */
export type End = 'top' | 'bottom';

/** How far each end has read: the last row taken from it, absent before the first. */
export interface Ends {
  readonly top?: ListPosition;
  readonly bottom?: ListPosition;
}

/** A row of the ordering by change as a read returns it. */
export interface ChangeListRow {
  readonly sku: string;
  readonly listSk: string;
}

/**
 * Reads up to `limit` rows with a change from one end, after `from` (the top: highest change first; the bottom:
 * lowest first); `more` when the end may hold more beyond them.
 */
export type ReadEnd<Row> = (end: End, from: ListPosition | undefined, limit: number) => Promise<{ rows: Row[]; more: boolean }>;

/** A row taken, with where the two ends stand once it is: a page that ends with it goes on from there. */
export interface TakenBySize<Row> {
  readonly row: Row;
  readonly ends: Ends;
}

/** Whether a position a cursor names is a row of the ordering by change: its key is that SKU's at some change. */
function isChangeRow(position: ListPosition): boolean {
  return numberSortKeyParts(position.sortKey)?.skuKey === skuSortKey(position.sku);
}

/** The ends a cursor carries, if they name rows of the ordering by change with the bottom below the top. */
export function endsOfCursor(ends: Ends): Ends | undefined {
  const { top, bottom } = ends;
  if ((top && !isChangeRow(top)) || (bottom && !isChangeRow(bottom))) return undefined;
  if (top && bottom && keyOrder(bottom.sortKey, top.sortKey) >= 0) return undefined;
  return ends;
}

/**
 * Which head comes first: the larger change without its sign; at equal size the rise (or no change) before the cut;
 * two equal changes as the ordering by change reads them from their end (rises from the top, cuts from the bottom).
 * The remaining rows are a stretch of the ordering by change, and the first of them by this rule is always at one of
 * its ends, so taking heads this way lists every row in that order.
 */
function firstEnd(top: ChangeListRow, bottom: ChangeListRow): End {
  const rise = changeOfSortKey(top.listSk) ?? 0;
  const cut = changeOfSortKey(bottom.listSk) ?? 0;
  if (Math.abs(rise) !== Math.abs(cut)) return Math.abs(rise) > Math.abs(cut) ? 'top' : 'bottom';
  return rise >= 0 ? 'top' : 'bottom';
}

/** The rows with a change, largest first, read from both ends of the ordering by change from where a cursor left them. */
export class SizeMerge<Row extends ChangeListRow> {
  private readonly pending: Record<End, Row[]> = { top: [], bottom: [] };
  private readonly more: Record<End, boolean> = { top: true, bottom: true };
  private ends: Ends;
  /** Every row with a change is taken: the two ends have met. */
  done = false;

  private readonly read: ReadEnd<Row>;
  /** The most rows one read asks for, so that the end not taken from reads little past what the page shows. */
  private readonly chunk: number;

  constructor(read: ReadEnd<Row>, from: Ends, chunk: number) {
    this.read = read;
    this.ends = from;
    this.chunk = chunk;
  }

  /** The next rows by size, at most `count`: fewer only once every row with a change is taken. */
  async take(count: number): Promise<TakenBySize<Row>[]> {
    const taken: TakenBySize<Row>[] = [];
    while (taken.length < count && !this.done) {
      await this.readEmptyEnds(count - taken.length);
      const end = this.nextEnd();
      if (end === undefined) {
        this.done = true;
        break;
      }
      const row = this.pending[end].shift() as Row;
      this.ends = { ...this.ends, [end]: { sku: row.sku, sortKey: row.listSk } };
      taken.push({ row, ends: this.ends });
    }
    return taken;
  }

  /** Reads on at each end whose rows read so far are taken; both at once, half the rows wanted each. */
  private async readEmptyEnds(wanted: number): Promise<void> {
    const empty = (['top', 'bottom'] as const).filter((end) => this.pending[end].length === 0 && this.more[end]);
    if (empty.length === 0) return;
    const limit = Math.max(1, Math.min(this.chunk, Math.ceil(wanted / empty.length)));
    await Promise.all(
      empty.map(async (end) => {
        const read = await this.read(end, this.ends[end], limit);
        this.pending[end].push(...read.rows);
        this.more[end] = read.more && read.rows.length > 0;
      }),
    );
  }

  /**
   * The end the next row comes from; none once an end has nothing past where it stands, or its next row is one the
   * other end has taken (the stretch between them is empty).
   */
  private nextEnd(): End | undefined {
    const [top, bottom] = [this.pending.top[0], this.pending.bottom[0]];
    if (top === undefined || bottom === undefined) return undefined;
    if (this.ends.bottom && keyOrder(top.listSk, this.ends.bottom.sortKey) <= 0) return undefined;
    if (this.ends.top && keyOrder(bottom.listSk, this.ends.top.sortKey) >= 0) return undefined;
    return firstEnd(top, bottom);
  }
}
