// The quality bench without the stack: the bands job's fit and the engine called in-process, for iterating on the method.
import { combineBands, computeCategoryBands, poolWinModels } from '#shared/pricing/bands.ts';
import type { CategoryBands } from '#shared/pricing/model.ts';
import { priceLine } from '#shared/pricing/price-line.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { segmentWinLifts } from '#shared/pricing/win-lift.ts';
import { recommendProduct } from '#shared/recommendations/recommend.ts';
import type { PricingSnapshot, ProductView } from '#shared/prices/inputs.ts';
import type { Band } from '#shared/pricing/model.ts';
import type { Recommendation } from '#shared/recommendations/schema.ts';
import { type MarketHistory, marketHistory, requestDeals } from './history.ts';
import { type Family, makeMarket, type Market, type MarketSize } from './market.ts';
import { scoreProducts } from './products.ts';
import { bandsFor, historyLines, type MarketResult, type PricedAnswer, scoreMarket } from './run.ts';

/**
 * One market priced as the stack would price it: each category's bands computed from the same history lines, the
 * win models' slopes pooled across categories as the bands job pools them, and each request line priced by
 * `priceLine` with an erp key's inputs (MAP not enforced). It skips the API, the drain and DynamoDB, so it judges the
 * method, not the service; the stack run gives the same shares to the third decimal.
 */
export function runMarketInProcess(family: Family, seed: number, size: MarketSize, nowMs = Date.now()): MarketResult {
  const started = performance.now();
  const settings = defaultPricingSettings;
  const market = makeMarket(family, seed, size, nowMs);
  const history = marketHistory(market, size);
  const deals = requestDeals(market, size);
  const fitted = fitMarket(market, history, nowMs);
  const { categories, workspace, lifts } = fitted;
  const answers = deals.map((deal): PricedAnswer => {
    const { product } = deal;
    const lift = lifts.get(market.segments[deal.customer.segment] as string);
    const priced = priceLine(
      {
        product: {
          sku: product.sku,
          costCents: product.costCents,
          currentPriceCents: product.listCents,
          ...(product.floorCents === undefined ? {} : { floorCents: product.floorCents }),
          ...(product.ceilingCents === undefined ? {} : { ceilingCents: product.ceilingCents }),
          ...(product.mapCents === undefined ? {} : { mapCents: product.mapCents }),
        },
        currency: 'USD',
        hasCustomer: true,
        quantity: deal.quantity,
        enforceMap: false,
        nowMs,
      },
      {
        ...bandsFor(deal, market, categories),
        ...(workspace ? { workspace } : {}),
        ...(lift === undefined ? {} : { workspaceWinLift: lift }),
      },
      settings,
    );
    return { ok: true, priceCents: priced.priceCents, confidence: priced.confidence };
  });
  const recommended = new Map(
    recommendInProcess(market, fitted, nowMs).flatMap((recommendation) =>
      recommendation.status === 'priced' ? [[recommendation.sku, recommendation.recommendedPriceCents] as const] : [],
    ),
  );
  return {
    family,
    seed,
    lines: scoreMarket(market, history, deals, answers, nowMs),
    products: scoreProducts(market, recommended),
    seconds: (performance.now() - started) / 1000,
  };
}

/** What the bands job leaves in the table, in memory: the categories' bands as pooled, the workspace band and lifts. */
export interface FittedMarket {
  readonly categories: ReadonlyMap<string, CategoryBands>;
  readonly workspace: Band | undefined;
  readonly lifts: ReadonlyMap<string, number>;
}

/** The bands job's fit of a market's history: each category's bands, the slopes pooled across them, the workspace band and lifts. */
export function fitMarket(market: Market, history: MarketHistory, nowMs: number): FittedMarket {
  const settings = defaultPricingSettings;
  const listMarkups = new Map(market.products.map((product) => [product.sku, product.listCents / product.costCents]));
  const categories = new Map<string, CategoryBands>(
    [...historyLines(market, history)].map(([category, lines]) => [category, computeCategoryBands(lines, settings, nowMs, listMarkups)]),
  );
  const pooled = poolWinModels(new Map([...categories].map(([category, bands]) => [category, bands.segments])));
  for (const [category, segments] of pooled) {
    const bands = categories.get(category);
    if (bands) categories.set(category, { ...bands, segments });
  }
  const workspace = combineBands(
    [...categories.values()].flatMap((bands) => (bands.category ? [bands.category] : [])),
    nowMs,
    settings,
  );
  // As the bands job stores them on the workspace bands item, from the pooled models.
  const lifts = segmentWinLifts(new Map([...categories].map(([category, bands]) => [category, bands.segments])), settings);
  return { categories, workspace, lifts };
}

/** The snapshot the bands job would read for the market's products, built from the fit in memory. */
export function marketSnapshot(market: Market, fitted: FittedMarket): PricingSnapshot {
  const products = new Map<string, ProductView>(
    market.products.map((product) => {
      const category = market.categories[product.category] as string;
      const view: ProductView = {
        sku: product.sku,
        category,
        currency: 'USD',
        costCents: product.costCents,
        currentPriceCents: product.listCents,
        ...(product.floorCents === undefined ? {} : { floorCents: product.floorCents }),
        ...(product.ceilingCents === undefined ? {} : { ceilingCents: product.ceilingCents }),
        ...(product.mapCents === undefined ? {} : { mapCents: product.mapCents }),
        segmentBands: fitted.categories.get(category)?.segmentSkus.get(product.sku) ?? new Map(),
      };
      return [product.sku, view];
    }),
  );
  return {
    products,
    skuByExternalId: new Map(),
    customers: new Map(),
    categoryBands: new Map(
      [...fitted.categories].map(([category, bands]) => [category, { category, band: bands.category, segments: bands.segments }]),
    ),
    customerBands: new Map(),
    workspaceBand: fitted.workspace,
    workspaceWinLifts: fitted.lifts,
    rates: new Map(),
  };
}

/** Each product's recommendation as the bands job computes it, from the fit in memory. */
export function recommendInProcess(market: Market, fitted: FittedMarket, nowMs: number): Recommendation[] {
  const snapshot = marketSnapshot(market, fitted);
  const context = { baseCurrency: 'USD', settings: defaultPricingSettings, nowMs, decisionId: () => 'pd_bench' };
  return [...snapshot.products.values()].map((product) => recommendProduct(product, snapshot, context));
}
