// The console's list by expected impact and by size of change against DynamoDB Local: every row once, in order, across pages and currencies.
import { describe, expect, it } from 'vitest';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { orderings } from '#shared/recommendations/listing.ts';
import { readCataloguePage } from '#shared/recommendations/listing-pages.ts';
import { storeRecommendations } from '#shared/recommendations/repository.ts';
import { type CatalogueQuery, type CatalogueRow, decodeCursor } from '#shared/recommendations/catalogue.ts';
import type { Impact, Recommendation } from '#shared/recommendations/schema.ts';
import { newWorkspace } from './support.ts';

const side = { priceCents: 1000, margin: 0.3, winProbability: 0.5, expectedRevenueCents: 500, expectedMarginCents: 150 };
const tooThin: Impact = { status: 'too_thin', reason: 'No win model.', evidence: { closedQuotes: 0, segments: [] } };

function estimated(expectedMarginChangeCents: number): Impact {
  return {
    status: 'estimated',
    quantity: 2,
    current: side,
    recommended: side,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: 0,
    evidence: { closedQuotes: 120, segments: [{ segment: 'smb', share: 1 }] },
  };
}

const RATES: Record<string, number> = { USD: 1, EUR: 1.08, JPY: 0.0067 };
const DIGITS: Record<string, number> = { USD: 2, EUR: 2, JPY: 0 };

/** 37 products over two categories and three currencies; every fifth too thin to say, every seventh unpriced. */
function catalogue(): Recommendation[] {
  return Array.from({ length: 37 }, (_, index): Recommendation => {
    const sku = `IMP-${index + 1}`;
    const currency = ['USD', 'EUR', 'JPY'][index % 3] as string;
    const common = {
      sku,
      category: index % 2 === 0 ? 'Lighting' : 'Fasteners',
      currency,
      currentPriceCents: 1000,
      pricingDecisionId: `pd_${sku}`,
      updatedAt: '2026-11-01T00:00:00.000Z',
    };
    if (index % 7 === 6) return { status: 'unpriced', ...common, reason: 'no_cost_basis' };
    return {
      status: 'priced',
      ...common,
      recommendedPriceCents: 700 + ((index * 53) % 700),
      floorCents: 1,
      rationale: 'r',
      reasonSummary: 's',
      drivers: [],
      confidence: 'medium',
      exchangeRateToBase: RATES[currency] as number,
      impact: index % 5 === 4 ? tooThin : estimated(((index * 7919) % 4001) - 2000),
    };
  });
}

/** Every row of a list, a small page at a time, following each page's cursor. */
async function everyRow(workspaceId: string, query: Omit<CatalogueQuery, 'after'>): Promise<CatalogueRow[]> {
  const rows: CatalogueRow[] = [];
  let after: string | undefined;
  do {
    const cursor = decodeCursor(after ?? null);
    const page = await readCataloguePage(workspaceId, { ...query, ...(cursor ? { after: cursor } : {}) }, 6);
    rows.push(...page.rows);
    after = page.next;
  } while (after);
  return rows;
}

function inBase(recommendation: Recommendation): number | undefined {
  if (recommendation.status !== 'priced' || recommendation.impact?.status !== 'estimated') return undefined;
  return (
    (recommendation.impact.expectedMarginChangeCents / 10 ** (DIGITS[recommendation.currency] as number)) *
    (RATES[recommendation.currency] as number)
  );
}

describe('the list by expected impact', () => {
  it('reads the largest expected margin gain per quote first in the base currency, then every product without an estimate, each once', async () => {
    const seller = await newWorkspace('Impact List Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'impact-desc' });
    expect(rows.map((row) => row.sku).sort()).toEqual(products.map((product) => product.sku).sort());
    const bySku = new Map(products.map((product) => [product.sku, product]));
    const values = rows.map((row) => inBase(bySku.get(row.sku) as Recommendation));
    const numbers = values.filter((value) => value !== undefined);
    expect(values.slice(0, numbers.length)).toEqual(numbers);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    expect(values.slice(numbers.length).every((value) => value === undefined)).toBe(true);
    // The row carries the change in the product's own minor units, for the console to show with its currency.
    const first = rows[0] as CatalogueRow;
    const impact = (bySku.get(first.sku) as Extract<Recommendation, { status: 'priced' }>).impact;
    expect(first.expectedMarginChangeCents).toBe(impact?.status === 'estimated' ? impact.expectedMarginChangeCents : undefined);
  });

  it('keeps to one category when filtered by it', async () => {
    const seller = await newWorkspace('Impact Category Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'impact-desc', category: 'Lighting' });
    expect(rows.map((row) => row.sku).sort()).toEqual(
      products
        .filter((p) => p.category === 'Lighting')
        .map((p) => p.sku)
        .sort(),
    );
    const bySku = new Map(products.map((product) => [product.sku, product]));
    const numbers = rows.map((row) => inBase(bySku.get(row.sku) as Recommendation)).filter((value) => value !== undefined);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
  });
});

describe('the list by size of change', () => {
  it('reads the largest change either way first, then the products without one, each once', async () => {
    const seller = await newWorkspace('Size List Seller');
    const products = catalogue();
    await storeRecommendations(seller.workspaceId, products);
    const rows = await everyRow(seller.workspaceId, { sort: 'size-desc' });
    expect(rows).toHaveLength(products.length);
    const sizes = rows.map((row) => (row.changePct === null ? null : Math.abs(row.changePct)));
    const numbers = sizes.filter((size) => size !== null);
    expect(sizes.slice(0, numbers.length)).toEqual([...numbers].sort((a, b) => b - a));
    expect(sizes.slice(numbers.length).every((size) => size === null)).toBe(true);
  });
});

describe('the write units of a recommendation with its impact', () => {
  it('are its item and one row per ordering, each row and entry under 1 KB', async () => {
    const seller = await newWorkspace('Impact Write Seller');
    const [first] = catalogue();
    const ledger = new CapacityLedger();
    await withCapacityLedger(ledger, () => storeRecommendations(seller.workspaceId, [first as Recommendation]));
    console.info(`write units per recommendation stored with its rows: ${ledger.writeUnits}`);
    // The item (with its basis and impact) in at most 2 KB, and each ordering's row and its index entry in 1 KB each;
    // the category list's update 1 more.
    expect(ledger.writeUnits).toBeLessThanOrEqual(2 + 2 * orderings.length + 1);
  });
});
