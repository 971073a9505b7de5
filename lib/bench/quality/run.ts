// Runs the pricing-quality bench: each market's history through the public API, its request lines priced, each scored against the oracle.
import { randomUUID } from 'node:crypto';
import { computeCategoryBands } from '#shared/pricing/bands.ts';
import { assembleLineBands, type CategoryBands, type HistoryLine, type LineBands } from '#shared/pricing/model.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { lineWinProbability } from '#shared/pricing/win-model.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import type { LocalStack } from '#lib/local/stack.ts';
import { keepAliveClient } from '#lib/bench/measure.ts';
import { type MarketHistory, marketHistory, policyPrice, requestDeals } from './history.ts';
import { type Deal, type Family, makeMarket, type Market, type MarketSize, trueWinProbability } from './market.ts';
import { clampToBounds, expectedProfit, oraclePrice, priceBounds } from './oracle.ts';
import { cellCurveProfit, cellLogisticPricer } from './baselines.ts';
import { type ScoredProduct, scoreProducts } from './products.ts';

const LINES_PER_CALL = 100;

/** One priced request line, scored. */
export interface ScoredLine {
  readonly ok: boolean;
  /** The engine's price (undefined where it refused) and the oracle's: where the engine over- or under-prices. */
  readonly priceCents: number | undefined;
  readonly bestPriceCents: number;
  readonly confidence: string | undefined;
  readonly oracle: number;
  readonly engine: number;
  readonly list: number;
  readonly policy: number;
  readonly segmentMedian: number;
  /** A plain logistic fit of win on margin per segment × category, priced at its best (see baselines.ts). */
  readonly cellLogistic: number;
  /** The cell's true curve today, and at the middle of the history's year (see baselines.ts). */
  readonly cellNow: number;
  readonly cellMidYear: number;
  /** The engine's win probability at its own price, and the truth's; undefined where the engine has no win model. */
  readonly predicted: number | undefined;
  readonly truth: number;
}

export interface MarketResult {
  readonly family: Family;
  readonly seed: number;
  readonly lines: readonly ScoredLine[];
  /** Each product's recommendation, one price for all its buyers (products.ts). */
  readonly products: readonly ScoredProduct[];
  readonly seconds: number;
}

type Client = ReturnType<typeof keepAliveClient>;

async function send(client: Client, method: string, path: string, headers: Record<string, string>, body?: string) {
  // The bench shares one workspace's rate window across its calls: a refused second is waited out.
  for (;;) {
    const response = await client.send(method, path, headers, body);
    if (response.status !== 429) return response;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function ingestHistory(client: Client, connectorKey: string, history: MarketHistory): Promise<void> {
  const headers = { authorization: `Bearer ${connectorKey}`, 'content-type': 'application/json' };
  const opened = await send(client, 'POST', '/api/v1/ingest/batches', headers);
  const { batchId } = JSON.parse(opened.body) as { batchId: string };
  for (const entity of ['product', 'customer', 'quote', 'order'] as const) {
    const records = history[entity];
    for (let start = 0; start < records.length; start += 1000) {
      const body = JSON.stringify({ entity, records: records.slice(start, start + 1000) });
      const staged = await send(client, 'POST', `/api/v1/ingest/batches/${batchId}/records`, headers, body);
      if (staged.status !== 202) throw new Error(`staging answered ${staged.status}: ${staged.body}`);
    }
  }
  await send(client, 'POST', `/api/v1/ingest/batches/${batchId}/commit`, headers);
  for (;;) {
    const answer = await send(client, 'GET', `/api/v1/ingest/batches/${batchId}`, headers);
    const { status, bandsRecomputedAt } = JSON.parse(answer.body) as { status: string; bandsRecomputedAt?: string };
    if (bandsRecomputedAt) return;
    if (status === 'failed') throw new Error('a market failed to drain');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface PricedAnswer {
  readonly ok: boolean;
  readonly priceCents?: number;
  readonly confidence?: string;
}

async function priceDeals(client: Client, erpKey: string, deals: readonly Deal[]): Promise<PricedAnswer[]> {
  const answers: PricedAnswer[] = [];
  for (let start = 0; start < deals.length; start += LINES_PER_CALL) {
    const lines = deals.slice(start, start + LINES_PER_CALL).map((deal) => ({
      productSku: deal.product.sku,
      customerExternalId: deal.customer.externalId,
      quantity: deal.quantity,
    }));
    const headers = { authorization: `Bearer ${erpKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    const response = await send(client, 'POST', '/api/v1/prices', headers, JSON.stringify({ lines }));
    if (response.status !== 200) throw new Error(`prices answered ${response.status}: ${response.body}`);
    answers.push(...(JSON.parse(response.body) as { lines: PricedAnswer[] }).lines);
  }
  return answers;
}

/** Each product's recommendation as GET /v1/prices/{sku} answers it, in cents. */
async function readRecommendations(client: Client, overviewKey: string, market: Market): Promise<Map<string, number>> {
  const recommended = new Map<string, number>();
  const headers = { authorization: `Bearer ${overviewKey}` };
  for (const product of market.products) {
    const response = await send(client, 'GET', `/v1/prices/${encodeURIComponent(product.sku)}`, headers);
    if (response.status !== 200) throw new Error(`GET /v1/prices/${product.sku} answered ${response.status}: ${response.body}`);
    const { recommended_price: price } = JSON.parse(response.body) as { recommended_price: number };
    recommended.set(product.sku, Math.round(price * 100));
  }
  return recommended;
}

/** The history as the drain keys it, so that the engine's win model can be refitted here for its calibration. */
export function historyLines(market: Market, history: MarketHistory): Map<string, HistoryLine[]> {
  const segmentOf = new Map(market.customers.map((customer) => [customer.externalId, market.segments[customer.segment] as string]));
  const categoryOf = new Map(market.products.map((product) => [product.sku, market.categories[product.category] as string]));
  const byCategory = new Map<string, HistoryLine[]>();
  const add = (line: HistoryLine) => {
    const category = categoryOf.get(line.productSku) as string;
    const lines = byCategory.get(category) ?? [];
    lines.push(line);
    byCategory.set(category, lines);
  };
  for (const quote of history.quote) {
    for (const line of quote.lines) {
      add({
        kind: 'quote',
        documentId: quote.externalId,
        productSku: line.productSku as string,
        customerExternalId: quote.customerExternalId ?? undefined,
        segment: segmentOf.get(quote.customerExternalId ?? '') ?? '',
        quantity: line.quantity,
        costCents: line.costCents ?? 0,
        priceCents: line.quotedPriceCents,
        atMs: Date.parse(quote.createdAt),
        outcome: quote.outcome,
      });
    }
  }
  for (const order of history.order) {
    for (const line of order.lines) {
      add({
        kind: 'order',
        documentId: order.externalId,
        productSku: line.productSku as string,
        customerExternalId: order.customerExternalId ?? undefined,
        segment: segmentOf.get(order.customerExternalId ?? '') ?? '',
        quantity: line.quantity,
        costCents: line.costCents ?? 0,
        priceCents: line.soldPriceCents,
        atMs: Date.parse(order.soldAt),
        ...(order.sourceQuoteExternalId ? { sourceQuoteExternalId: order.sourceQuoteExternalId } : {}),
      });
    }
  }
  return byCategory;
}

export function bandsFor(deal: Deal, market: Market, categoryBands: ReadonlyMap<string, CategoryBands>): LineBands {
  const bands = categoryBands.get(market.categories[deal.product.category] as string);
  const segment = market.segments[deal.customer.segment] as string;
  return assembleLineBands({
    sku: deal.product.sku,
    customerBands: bands?.customerSkus.get(deal.customer.externalId),
    segmentSku: bands?.segmentSkus.get(deal.product.sku)?.get(segment),
    segmentCategory: bands?.segments.get(segment),
    category: bands?.category,
    workspace: undefined,
  });
}

/** The median realised margin of each segment across its categories: the simplest rule a seller might price by. */
function segmentMedianMargins(market: Market, lines: ReadonlyMap<string, HistoryLine[]>): Map<string, number> {
  const margins = new Map<string, number[]>();
  for (const categoryLines of lines.values()) {
    for (const line of categoryLines) {
      const realised = line.kind === 'order' || line.outcome === 'won';
      if (!realised) continue;
      const list = margins.get(line.segment) ?? [];
      list.push((line.priceCents - line.costCents) / line.priceCents);
      margins.set(line.segment, list);
    }
  }
  return new Map(
    market.segments.map((segment) => {
      const sorted = (margins.get(segment) ?? [0.25]).sort((a, b) => a - b);
      return [segment, sorted[Math.floor(sorted.length / 2)] ?? 0.25];
    }),
  );
}

/** One market: a workspace of its own on the shared stack, its history ingested, its request lines priced and scored. */
export async function runMarket(stack: LocalStack, family: Family, seed: number, size: MarketSize): Promise<MarketResult> {
  const started = performance.now();
  const nowMs = Date.now();
  const market = makeMarket(family, seed, size, nowMs);
  const history = marketHistory(market, size);
  const deals = requestDeals(market, size);
  const seller = await createWorkspaceWithKeys(`Quality ${family} ${seed}`);
  const client = keepAliveClient(stack.gatewayUrl);
  let answers: PricedAnswer[];
  let recommended: Map<string, number>;
  try {
    await ingestHistory(client, seller.keys.connector, history);
    answers = await priceDeals(client, seller.keys.erp, deals);
    recommended = await readRecommendations(client, seller.keys.pwLive, market);
  } finally {
    client.close();
  }

  const scored = scoreMarket(market, history, deals, answers, nowMs);
  return { family, seed, lines: scored, products: scoreProducts(market, recommended), seconds: (performance.now() - started) / 1000 };
}

/** Scores each request line's answer against the oracle and the baselines, with the engine's win probability at its price. */
export function scoreMarket(
  market: Market,
  history: MarketHistory,
  deals: readonly Deal[],
  answers: readonly PricedAnswer[],
  nowMs: number,
): ScoredLine[] {
  const lines = historyLines(market, history);
  // The list markups the bands job reads from the product items.
  const listMarkups = new Map(market.products.map((product) => [product.sku, product.listCents / product.costCents]));
  const categoryBands = new Map(
    [...lines].map(([category, categoryLines]) => [
      category,
      computeCategoryBands(categoryLines, defaultPricingSettings, nowMs, listMarkups),
    ]),
  );
  const medians = segmentMedianMargins(market, lines);
  const cellLogistic = cellLogisticPricer(market, lines);
  const scored = deals.map((deal, index): ScoredLine => {
    const answer = answers[index] as PricedAnswer;
    const bounds = priceBounds(deal);
    const best = oraclePrice(market, deal, bounds);
    const oracle = best.profit;
    const cost = deal.product.costCents;
    const median = medians.get(market.segments[deal.customer.segment] as string) ?? 0.25;
    const atMedian = clampToBounds(cost / (1 - median), bounds);
    const enginePrice = answer.ok && answer.priceCents !== undefined ? answer.priceCents : undefined;
    const predicted =
      enginePrice === undefined
        ? undefined
        : lineWinProbability(
            bandsFor(deal, market, categoryBands),
            deal.quantity,
            (enginePrice - cost) / enginePrice,
            deal.product.listCents / cost,
          );
    return {
      ok: answer.ok,
      priceCents: enginePrice,
      bestPriceCents: best.priceCents,
      confidence: answer.confidence,
      oracle,
      // A line the engine refused earns nothing: the seller has no price to quote.
      engine: enginePrice === undefined ? 0 : expectedProfit(market, deal, enginePrice),
      list: expectedProfit(market, deal, clampToBounds(deal.product.listCents, bounds)),
      policy: expectedProfit(market, deal, clampToBounds(policyPrice(market, deal), bounds)),
      segmentMedian: expectedProfit(market, deal, atMedian),
      cellLogistic: expectedProfit(market, deal, cellLogistic(deal, bounds) ?? atMedian),
      cellNow: cellCurveProfit(market, deal, bounds, 0),
      cellMidYear: cellCurveProfit(market, deal, bounds, 0.5),
      predicted,
      truth: enginePrice === undefined ? 0 : trueWinProbability(market, deal, enginePrice),
    };
  });
  return scored;
}
