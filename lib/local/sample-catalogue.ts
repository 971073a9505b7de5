// A seller's data made up for trying and measuring the service: products, customers, quotes and orders, repeatable by seed.
import type { CustomerRecord, OrderRecord, ProductRecord, QuoteRecord } from '#shared/records/schema.ts';
import { seededRandom } from '#platform/seeded-random.ts';

export interface CatalogueSize {
  readonly products: number;
  readonly customers: number;
  readonly quotes: number;
  readonly orders: number;
}

export interface SampleCatalogue {
  readonly product: ProductRecord[];
  readonly customer: CustomerRecord[];
  readonly quote: QuoteRecord[];
  readonly order: OrderRecord[];
}

/** The mix a distributor's nightly sync carries: mostly orders and quotes against a smaller catalogue and customer list. */
export function mixFor(total: number): CatalogueSize {
  const products = Math.round(total * 0.2);
  const customers = Math.round(total * 0.05);
  const quotes = Math.round(total * 0.25);
  return { products, customers, quotes, orders: total - products - customers - quotes };
}

const categories = ['Fasteners', 'Hand Tools', 'Power Tools', 'Safety', 'Electrical', 'Plumbing', 'Adhesives', 'Abrasives'];
const brands = ['Acme', 'Borealis', 'Cobalt Works', 'Delta Supply', 'Everline'];
const segments = ['enterprise', 'mid-market', 'smb', 'distributor'];
const regions = ['north', 'south', 'east', 'west'];
const lostReasons = ['price', 'lead time', 'competitor', 'budget', null];

const DAY_MS = 86_400_000;

/** The seeded draws and the names one catalogue shares: every part draws from the one sequence, in the same order. */
interface Draw {
  readonly next: () => number;
  pick<T>(list: readonly T[]): T;
  between(low: number, high: number): number;
  /** An instant `days` before now, at a drawn second of that day. */
  daysAgo(days: number): string;
  readonly prefix: string;
  sku(index: number): string;
  customerId(index: number): string;
  readonly size: CatalogueSize;
}

function drawFor(size: CatalogueSize, options: { seed?: number; now?: Date; prefix?: string }): Draw {
  const next = seededRandom(options.seed ?? 42);
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const now = (options.now ?? new Date('2026-11-01T00:00:00Z')).getTime();
  const prefix = options.prefix ?? '';
  return {
    next,
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T,
    between,
    daysAgo: (days) => new Date(now - days * DAY_MS - between(0, 86_399) * 1000).toISOString(),
    prefix,
    sku: (index) => `${prefix}SKU-${String(index).padStart(6, '0')}`,
    customerId: (index) => `${prefix}C-${String(index).padStart(5, '0')}`,
    size,
  };
}

function sampleProducts({ next, pick, between, prefix, sku, size }: Draw): ProductRecord[] {
  const product: ProductRecord[] = [];
  for (let i = 0; i < size.products; i++) {
    const costCents = between(50, 50_000);
    const category = pick(categories);
    product.push({
      sku: sku(i),
      externalId: `${prefix}ERP-P-${i}`,
      name: `${category} item ${i}`,
      category,
      costCents,
      currentPriceCents: Math.round(costCents * (1.2 + next() * 0.6)),
      ...(next() < 0.3 ? { floorCents: Math.round(costCents * 1.05) } : {}),
      ...(next() < 0.1 ? { mapCents: Math.round(costCents * 1.3) } : {}),
      isActive: next() < 0.95,
      inStock: next() < 0.85,
      stockOnHand: between(-5, 2_000),
      brand: pick(brands),
      currency: 'USD',
      attributes: { uom: pick(['each', 'box', 'case']), weightKg: Math.round(next() * 2000) / 100 },
    });
  }
  return product;
}

function sampleCustomers({ next, pick, customerId, size }: Draw): CustomerRecord[] {
  const customer: CustomerRecord[] = [];
  for (let i = 0; i < size.customers; i++) {
    customer.push({
      name: `Customer ${i} Ltd`,
      externalId: customerId(i),
      segment: pick(segments),
      region: pick(regions),
      country: 'US',
      creditTerms: pick(['NET30', 'NET60', null]),
      currency: next() < 0.9 ? 'USD' : 'EUR',
      isActive: true,
    });
  }
  return customer;
}

/** A document line: any product, at a drawn cost and a price above it. */
function sampleLine({ next, between, sku, size }: Draw) {
  const index = between(0, Math.max(size.products, 1) - 1);
  const costCents = between(50, 50_000);
  return { productSku: sku(index), quantity: between(1, 200), costCents, priceCents: Math.round(costCents * (1.1 + next() * 0.5)) };
}

function sampleQuotes(draw: Draw): QuoteRecord[] {
  const { next, pick, between, daysAgo, prefix, customerId, size } = draw;
  const quote: QuoteRecord[] = [];
  for (let i = 0; i < size.quotes; i++) {
    const outcome = pick(['open', 'won', 'won', 'lost'] as const);
    const created = between(1, 540);
    const euro = next() < 0.1;
    quote.push({
      externalId: `${prefix}Q-${i}`,
      customerExternalId: customerId(between(0, Math.max(size.customers, 1) - 1)),
      outcome,
      currency: euro ? 'EUR' : 'USD',
      exchangeRate: euro ? Math.round((1.02 + next() * 0.12) * 10_000) / 10_000 : 1,
      createdAt: daysAgo(created),
      ...(outcome === 'open' ? {} : { decidedAt: daysAgo(Math.max(0, created - between(1, 20))) }),
      ...(outcome === 'lost' ? { lostReason: pick(lostReasons) } : {}),
      lines: Array.from({ length: between(1, 3) }, () => {
        const { productSku, quantity, costCents, priceCents } = sampleLine(draw);
        return { productSku, quantity, costCents, quotedPriceCents: priceCents, pricingDecisionId: null };
      }),
    });
  }
  return quote;
}

function sampleOrders(draw: Draw): OrderRecord[] {
  const { next, between, daysAgo, prefix, customerId, size } = draw;
  const order: OrderRecord[] = [];
  for (let i = 0; i < size.orders; i++) {
    const euro = next() < 0.1;
    const fromQuote = size.quotes > 0 && next() < 0.3;
    order.push({
      externalId: `${prefix}O-${i}`,
      customerExternalId: next() < 0.97 ? customerId(between(0, Math.max(size.customers, 1) - 1)) : null,
      ...(fromQuote ? { sourceQuoteExternalId: `${prefix}Q-${between(0, size.quotes - 1)}` } : {}),
      currency: euro ? 'EUR' : 'USD',
      exchangeRate: euro ? Math.round((1.02 + next() * 0.12) * 10_000) / 10_000 : 1,
      soldAt: daysAgo(between(0, 540)),
      lines: Array.from({ length: between(1, 3) }, () => {
        const { productSku, quantity, costCents, priceCents } = sampleLine(draw);
        return { productSku, quantity, costCents, soldPriceCents: priceCents };
      }),
    });
  }
  return order;
}

export function sampleCatalogue(size: CatalogueSize, options: { seed?: number; now?: Date; prefix?: string } = {}): SampleCatalogue {
  const draw = drawFor(size, options);
  // In this order: each part draws from the one sequence where the last left it.
  const product = sampleProducts(draw);
  const customer = sampleCustomers(draw);
  return { product, customer, quote: sampleQuotes(draw), order: sampleOrders(draw) };
}
