// Unit tests of the top of the console's list that a filter keeps: the rows the first page shows, the filter asked about no row past the last one kept.
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Commands from '#platform/table/commands.ts';
import { table as definition } from '#platform/table/definition.ts';
import { sampleRecommendation, spreadMarginChangeCents, spreadPriceCents, estimatedImpact } from '#test/support/recommendations.ts';
import type { CatalogueRow } from './catalogue.ts';
import { recommendationRows } from './listing.ts';
import { keepInOrder, readCataloguePage, readListTop, type RowFilter } from './listing-pages.ts';
import { keyOrder } from './listing-shards.ts';
import type { Recommendation } from './schema.ts';

const listingIndex = definition.indexes[3];

/** The table's items, and the Queries and GetItems asked of it. */
const stored = vi.hoisted(() => ({ items: [] as Record<string, unknown>[], queries: 0, gets: 0 }));

/** A Query of the listing index as DynamoDB answers it: up to Limit rows after the start key, and where it stopped when it hit the Limit. */
function query(input: QueryCommandInput) {
  stored.queries += 1;
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  if (input.FilterExpression) throw new Error('this fake reads no filter');
  const [pk, sk] = [names['#pk'] as string, names['#sk'] ?? listingIndex.sortKey];
  const condition = input.KeyConditionExpression ?? '';
  const bound = String(values[':bound']);
  const inRange = (key: string) =>
    condition.includes('<') ? keyOrder(key, bound) < 0 : condition.includes('>=') ? keyOrder(key, bound) >= 0 : true;
  const direction = input.ScanIndexForward === false ? -1 : 1;
  const start = input.ExclusiveStartKey?.[sk] as string | undefined;
  const rows = stored.items
    .filter((item) => item[pk] === values[':pk'] && inRange(String(item[sk])))
    .sort((a, b) => direction * keyOrder(String(a[sk]), String(b[sk])))
    .filter((item) => start === undefined || direction * keyOrder(String(item[sk]), start) > 0)
    .slice(0, input.Limit);
  const last = rows.length === input.Limit ? rows.at(-1) : undefined;
  return {
    Items: rows,
    Count: rows.length,
    ScannedCount: rows.length,
    ...(last ? { LastEvaluatedKey: { PK: last.PK, SK: last.SK, [pk]: last[pk], [sk]: last[sk] } } : {}),
    $metadata: {},
  };
}

vi.mock('#platform/table/commands.ts', async (original) => ({
  ...(await original<typeof Commands>()),
  queryPage: async (input: QueryCommandInput) => query(input),
  getItem: async () => {
    stored.gets += 1;
    return undefined;
  },
}));

const WORKSPACE = 'ws_top';
const impactQuery = { sort: 'impact-desc' as const };

/** Products with an estimate each (every eleventh with no rate to the base, so listed after every number), and a few without. */
function catalogue(size: number): Recommendation[] {
  return Array.from({ length: size }, (_, index) =>
    sampleRecommendation(
      { sku: `TOP-${index + 1}` },
      index % 13 === 12
        ? undefined
        : {
            recommendedPriceCents: spreadPriceCents(index),
            confidence: 'medium',
            ...(index % 11 === 10 ? {} : { exchangeRateToBase: 1 }),
            impact: estimatedImpact(spreadMarginChangeCents(index)),
          },
    ),
  );
}

function store(recommendations: readonly Recommendation[]): void {
  stored.items = recommendations.flatMap((recommendation) => recommendationRows(WORKSPACE, recommendation));
  stored.queries = 0;
  stored.gets = 0;
}

/** Every row of the list by impact, in its order: one page larger than the list, no filter. */
async function wholeList(): Promise<string[]> {
  return (await readCataloguePage(WORKSPACE, impactQuery, 1000)).rows.map((row) => row.sku);
}

/** The approval states as the landing page reads them: each row the filter is asked about is a state read. */
function approvalFilter(approved: ReadonlySet<string>) {
  const asked: string[] = [];
  const unreviewed: RowFilter = async (rows) => {
    asked.push(...rows.map((row) => row.sku));
    return rows.filter((row) => !approved.has(row.sku));
  };
  return { asked, unreviewed };
}

/** What the landing page showed before: the state of every row read, the first five of those nobody approved. */
function readAllStatesThenCut(list: readonly string[], approved: ReadonlySet<string>): string[] {
  return list.filter((sku) => !approved.has(sku)).slice(0, 5);
}

beforeEach(() => store([]));

describe('the top of the list that a filter keeps', () => {
  it('shows the same five as reading every row’s state did, when the first rows are approved, asking no state past the fifth', async () => {
    store(catalogue(60));
    const list = await wholeList();
    // The top eight approved, then every third.
    const approved = new Set(list.filter((_, at) => at < 8 || at % 3 === 0));
    const { asked, unreviewed } = approvalFilter(approved);
    const top = (await readListTop(WORKSPACE, impactQuery, 5, unreviewed)).map((row) => row.sku);
    expect(top).toEqual(readAllStatesThenCut(list, approved));
    expect(top).toHaveLength(5);
    expect(asked).toEqual(list.slice(0, list.indexOf(top[4] as string) + 1));
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('shows the same five as the first page filtered the same way', async () => {
    store(catalogue(60));
    const list = await wholeList();
    const approved = new Set(list.filter((_, at) => at < 12 || at % 2 === 1));
    const page = await readCataloguePage(WORKSPACE, impactQuery, 5, approvalFilter(approved).unreviewed);
    const top = await readListTop(WORKSPACE, impactQuery, 5, approvalFilter(approved).unreviewed);
    expect(top).toEqual(page.rows);
    expect(top.map((row) => row.sku)).toEqual(readAllStatesThenCut(list, approved));
  });

  it('reads on past the rows with a number, to the estimates with no rate to the base, when too few above are left', async () => {
    store(catalogue(30));
    const list = await wholeList();
    const noRate = list.filter((sku) => Number(sku.slice(4)) % 11 === 0);
    expect(noRate.length).toBeGreaterThan(0);
    // Every row with a number approved, but one.
    const numbered = list.slice(0, list.indexOf(noRate[0] as string));
    const approved = new Set(numbered.slice(1));
    const top = await readListTop(WORKSPACE, impactQuery, 5, approvalFilter(approved).unreviewed);
    expect(top.map((row) => row.sku)).toEqual(readAllStatesThenCut(list, approved));
    expect(top.map((row) => row.sku)).toContain(noRate[0]);
  });

  it('shows fewer than five, or none, when fewer are left unapproved', async () => {
    store(catalogue(20));
    const list = await wholeList();
    const { unreviewed } = approvalFilter(new Set(list.slice(0, -3)));
    expect((await readListTop(WORKSPACE, impactQuery, 5, unreviewed)).map((row) => row.sku)).toEqual(list.slice(-3));
    expect(await readListTop(WORKSPACE, impactQuery, 5, approvalFilter(new Set(list)).unreviewed)).toEqual([]);
  });

  it('stops where the first page stops when most of the list is approved: the filter’s reads are spent at the same row', async () => {
    store(catalogue(400));
    const list = await wholeList();
    // The only rows left unapproved are far past what a filtered view reads.
    const approved = new Set(list.slice(0, 380));
    const page = await readCataloguePage(WORKSPACE, impactQuery, 5, approvalFilter(approved).unreviewed);
    const top = await readListTop(WORKSPACE, impactQuery, 5, approvalFilter(approved).unreviewed);
    expect(top).toEqual(page.rows);
    expect(top).toEqual([]);
  });

  it('reads no category list, and with nothing to filter the Queries of a first page', async () => {
    store(catalogue(60));
    const rows: CatalogueRow[] = await readListTop(WORKSPACE, impactQuery, 5);
    const [queries, gets] = [stored.queries, stored.gets];
    store(catalogue(60));
    const page = await readCataloguePage(WORKSPACE, impactQuery, 5);
    expect(rows).toEqual(page.rows);
    expect(queries).toBe(stored.queries);
    expect([gets, stored.gets]).toEqual([0, 1]);
  });
});

describe('keeping rows in order', () => {
  const rows = Array.from({ length: 20 }, (_, at) => ({ sku: `K-${at}` }) as CatalogueRow);

  it('keeps what the filter keeps of every row, cut to the rows wanted, asking a chunk of the rows still wanted at a time', async () => {
    const chunks: string[][] = [];
    const keep: RowFilter = async (asked) => {
      chunks.push(asked.map((row) => row.sku));
      return asked.filter((row) => Number(row.sku.slice(2)) >= 6 && Number(row.sku.slice(2)) % 2 === 0);
    };
    const everyRow = (await keep(rows)).slice(0, 5);
    chunks.length = 0;
    expect(await keepInOrder(rows, keep, 5)).toEqual(everyRow);
    expect(chunks).toEqual([
      ['K-0', 'K-1', 'K-2', 'K-3', 'K-4'],
      ['K-5', 'K-6', 'K-7', 'K-8', 'K-9'],
      ['K-10', 'K-11', 'K-12'],
      ['K-13'],
      ['K-14'],
    ]);
  });

  it('asks about every row when too few are kept, and about none when none is wanted', async () => {
    const asked: string[] = [];
    const keep: RowFilter = async (chunk) => {
      asked.push(...chunk.map((row) => row.sku));
      return chunk.filter((row) => row.sku === 'K-19');
    };
    expect(await keepInOrder(rows, keep, 5)).toEqual([rows[19]]);
    expect(asked).toEqual(rows.map((row) => row.sku));
    asked.length = 0;
    expect(await keepInOrder(rows, keep, 0)).toEqual([]);
    expect(asked).toEqual([]);
  });
});
