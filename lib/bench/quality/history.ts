// The history a simulated market produced (a year of quotes priced by its policy, won or lost by its truth) and the deals the bench asks prices for.
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import {
  baseFamily,
  type Deal,
  families,
  type Market,
  type MarketSize,
  normal,
  type SimCustomer,
  type SimProduct,
  SPARSE_SHARE,
  trueWinProbability,
} from './market.ts';

const DAY_MS = 86_400_000;
const HISTORY_DAYS = 365;

/** Quotes in the market's history: all of the size's, or a quarter of them when sparse. */
export function historyQuotes(market: Market, size: MarketSize): number {
  return market.conditions.sparse ? Math.round(size.quotes * SPARSE_SHARE) : size.quotes;
}

/** A deal drawn as the market draws them: active customers and popular products more often, some cells a handful. */
function dealSampler(market: Market, random: () => number): (yearsAgo: number) => Deal {
  const cumulative = (weights: number[]) => {
    let sum = 0;
    return weights.map((weight) => (sum += weight));
  };
  const customerTotals = cumulative(market.customers.map((customer) => customer.activity));
  // Popularity by product, steep: a few products carry most quotes, and some cells stay sparse.
  const popularity = market.products.map((_, index) => 1 / (1 + ((index * 7) % market.products.length)) ** 0.8);
  const productTotals = cumulative(popularity);
  const pick = (totals: number[]) => {
    const target = random() * (totals.at(-1) ?? 1);
    let lo = 0;
    let hi = totals.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((totals[mid] ?? 0) < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  return (yearsAgo) => {
    const customer = market.customers[pick(customerTotals)] as SimCustomer;
    const product = market.products[pick(productTotals)] as SimProduct;
    const quantity = Math.max(1, Math.round(product.quantity * 2 ** (1.2 * normal(random))));
    return { product, customer, quantity, yearsAgo };
  };
}

/** The history's pricing policy: the segment's discount off list with a salesperson's noise, and now and then an override. */
export function policyPrice(market: Market, deal: Deal, random?: () => number): number {
  const { product, customer } = deal;
  // Confounded: the salesperson knew which customers would pay more, and gave them less off.
  let discount = (market.policyDiscount[customer.segment] ?? 0.05) - market.confounding * customer.effect;
  if (random) {
    discount += 0.04 * normal(random);
    // Overrides: a rep matches a rival's price or holds out for list and more.
    if (random() < 0.12) discount = random() < 0.6 ? 0.1 + 0.2 * random() : -0.1 * random();
  }
  return Math.max(Math.round(product.costCents * 1.02), Math.round(product.listCents * (1 - discount)));
}

export interface MarketHistory {
  readonly product: ProductRecord[];
  readonly customer: CustomerRecord[];
  readonly quote: QuoteRecord[];
  readonly order: OrderRecord[];
}

/** The market's products and customers as the seller's records. */
function catalogueRecords(market: Market): Pick<MarketHistory, 'product' | 'customer'> {
  const product: ProductRecord[] = market.products.map((item) => ({
    sku: item.sku,
    externalId: `ERP-${item.sku}`,
    name: `${market.categories[item.category]} ${item.sku}`,
    category: market.categories[item.category] as string,
    costCents: item.costCents,
    currentPriceCents: item.listCents,
    ...(item.floorCents === undefined ? {} : { floorCents: item.floorCents }),
    ...(item.ceilingCents === undefined ? {} : { ceilingCents: item.ceilingCents }),
    ...(item.mapCents === undefined ? {} : { mapCents: item.mapCents }),
    currency: 'USD',
  }));
  const customer: CustomerRecord[] = market.customers.map((item) => ({
    externalId: item.externalId,
    name: `Buyer ${item.externalId}`,
    segment: market.segments[item.segment] as string,
    currency: 'USD',
  }));
  return { product, customer };
}

/** A year of quotes priced by the policy, won or lost by the truth, some still open; won quotes mostly become orders. */
export function marketHistory(market: Market, size: MarketSize): MarketHistory {
  const random = seededRandom(market.seed * 31 + families.indexOf(baseFamily(market.family)) + 17);
  const draw = dealSampler(market, random);
  const quotes = historyQuotes(market, size);
  const { product, customer } = catalogueRecords(market);
  const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();
  const quote: QuoteRecord[] = [];
  const order: OrderRecord[] = [];
  for (let i = 0; i < quotes; i++) {
    // Older quotes first, spread over the year, with the last week's mostly still open.
    const daysAgo = 1 + (HISTORY_DAYS - 1) * (1 - i / quotes) + random() * 0.9;
    const deal = draw(daysAgo / HISTORY_DAYS);
    const priceCents = policyPrice(market, deal, random);
    const createdMs = market.nowMs - daysAgo * DAY_MS;
    const open = random() < (daysAgo < 10 ? 0.6 : 0.08);
    const won = random() < trueWinProbability(market, deal, priceCents);
    const outcome = open ? 'open' : won ? 'won' : 'lost';
    const externalId = `Q-${i}`;
    quote.push({
      externalId,
      customerExternalId: deal.customer.externalId,
      outcome,
      currency: 'USD',
      createdAt: iso(createdMs),
      ...(outcome === 'open' ? {} : { decidedAt: iso(Math.min(market.nowMs - 60_000, createdMs + 2 * DAY_MS)) }),
      lines: [
        {
          productSku: deal.product.sku,
          quantity: deal.quantity,
          costCents: deal.product.costCents,
          quotedPriceCents: priceCents,
          pricingDecisionId: null,
        },
      ],
    });
    if (outcome === 'won' && random() < 0.7) {
      order.push({
        externalId: `O-${i}`,
        customerExternalId: deal.customer.externalId,
        sourceQuoteExternalId: externalId,
        currency: 'USD',
        soldAt: iso(Math.min(market.nowMs - 60_000, createdMs + 3 * DAY_MS)),
        lines: [{ productSku: deal.product.sku, quantity: deal.quantity, costCents: deal.product.costCents, soldPriceCents: priceCents }],
      });
    }
  }
  return { product, customer, quote, order };
}

/** The lines the bench asks prices for: deals drawn as history's were, dated now. */
export function requestDeals(market: Market, size: MarketSize): Deal[] {
  const random = seededRandom(market.seed * 131 + families.indexOf(baseFamily(market.family)) + 5);
  const draw = dealSampler(market, random);
  return Array.from({ length: size.requests }, () => draw(0));
}
