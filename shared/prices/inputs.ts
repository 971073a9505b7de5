// What a price call reads: its products, customers, bands and FX rates, deduplicated across lines in two BatchGetItem rounds.
import { decodeBand, decodeBandMap, decodeWinLifts, readCategoryBandsItem, type StoredCategoryBands } from '#shared/bands/items.ts';
import { BoundedMap, ExpiringCache } from '#platform/caches.ts';
import type { Band, PricingProduct } from '#shared/pricing/model.ts';
import { type DataWarning, warningsOf } from '#shared/canonical/data-warnings.ts';
import { type RecentQuotes, recentQuotesOf } from '#shared/pricing/quote-rate.ts';
import { getItems } from '#platform/table/bulk.ts';
import { keys, skuOfProductKey } from '#platform/table/keys.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import type { PrimaryKey } from '#platform/table/key-parts.ts';
import { queryLookup } from '#platform/table/query.ts';
import type { PriceRequestLine } from './request.ts';
import type { BandsCache } from './bands-cache.ts';

/** A product item as a call prices it: its amounts in its own currency, not yet converted. */
export interface ProductView extends PricingProduct {
  readonly externalId?: string;
  readonly name?: string;
  readonly category: string;
  readonly currency?: string;
  /** segment → segment × SKU band, kept on the product item so that reading the product reads them too. */
  readonly segmentBands: ReadonlyMap<string, Band>;
  /** The data warnings its last batch left it with (shared/canonical/data-warnings.ts); absent or empty when it is in line. */
  readonly warnings?: DataWarning[];
  /** How often it was quoted lately, as its last bands job counted it; absent before one. */
  readonly recentQuotes?: RecentQuotes;
}

export interface CustomerView {
  readonly externalId: string;
  readonly segment: string;
  readonly currency?: string;
}

export interface FxRate {
  /** Units of the workspace's base currency per one unit of the currency. */
  readonly rate: number;
  readonly asOfMs: number;
}

/** Everything the lines of one call need, read once. */
export interface PricingSnapshot {
  readonly products: ReadonlyMap<string, ProductView>;
  readonly skuByExternalId: ReadonlyMap<string, string>;
  readonly customers: ReadonlyMap<string, CustomerView>;
  readonly categoryBands: ReadonlyMap<string, StoredCategoryBands>;
  /** customerBandsKey(customer, category) → sku → customer × SKU band. */
  readonly customerBands: ReadonlyMap<string, ReadonlyMap<string, Band>>;
  readonly workspaceBand: Band | undefined;
  /** Each segment's win lift, from the workspace bands item (win-lift.ts); absent in snapshots made without it. */
  readonly workspaceWinLifts?: ReadonlyMap<string, number>;
  readonly rates: ReadonlyMap<string, FxRate>;
}

export function customerBandsKey(customer: string, category: string): string {
  return JSON.stringify([customer, category]);
}

/** The customer a line names, by either field: customers are keyed by external id, so both name the same key. */
export function lineCustomerIds(line: PriceRequestLine): string[] {
  return [...new Set([line.customerId, line.customerExternalId].filter((id): id is string => id !== undefined))];
}

/** FX rates change at most once per drain; a minute's cache saves a read on nearly every call. */
const RATE_CACHE_MS = 60_000;
// Misses are not kept: a rate drained a moment ago must be used at once.
const rateCache = new ExpiringCache<FxRate>({ ttlMs: RATE_CACHE_MS });

export function forgetCachedRates(): void {
  rateCache.clear();
}

/** Each product's category as last read, per instance: where its bands are, known before the product is read. */
const knownCategories = new BoundedMap<string, string>(50_000);
/**
 * A round's keys go out as this many BatchGetItem calls at once rather than as full calls of 100: the items cost the
 * same, and DynamoDB answers eight small calls in parallel sooner than one large one.
 */
const PARALLEL_READS = 8;

/** A line that names only an external id is resolved through the lookup index: a Query each, in parallel. */
async function resolveExternalIds(workspaceId: string, externalIds: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await Promise.all(
    externalIds.map(async (externalId) => {
      const [item] = await queryLookup(lookupKeys.productsWithExternalId(workspaceId, externalId), 1);
      const sku = skuOfProductKey(workspaceId, item?.PK);
      if (sku !== undefined) found.set(externalId, sku);
    }),
  );
  return found;
}

function productView(item: Record<string, unknown>): ProductView {
  const {
    segmentBands,
    warnings,
    recentQuotes,
    warningBasis: _basis,
    writtenBackPriceCents: _approved,
    orderLines: _orderLines,
    ...fields
  } = item;
  const quotes = recentQuotesOf({ recentQuotes });
  return {
    ...(fields as unknown as Omit<ProductView, 'segmentBands' | 'warnings' | 'recentQuotes'>),
    segmentBands: decodeBandMap(segmentBands),
    ...(warnings === undefined ? {} : { warnings: warningsOf({ warnings }) }),
    ...(quotes ? { recentQuotes: quotes } : {}),
  };
}

function customerView(item: Record<string, unknown>): CustomerView {
  return {
    externalId: String(item.externalId),
    segment: typeof item.segment === 'string' ? item.segment : '',
    ...(typeof item.currency === 'string' && item.currency !== '' ? { currency: item.currency } : {}),
  };
}

/** What the rounds have read so far, and what they still have to. */
interface SnapshotRead {
  readonly workspaceId: string;
  readonly baseCurrency: string;
  readonly nowMs: number;
  readonly products: Map<string, ProductView>;
  readonly customers: Map<string, CustomerView>;
  workspaceBand: Band | undefined;
  workspaceWinLifts: ReadonlyMap<string, number>;
  readonly categoryBands: Map<string, StoredCategoryBands>;
  readonly customerBands: Map<string, ReadonlyMap<string, Band>>;
  readonly rates: Map<string, FxRate>;
  readonly ratesToRead: Set<string>;
  /** Every key a round has asked for, as `PK\0SK`. */
  readonly requested: Set<string>;
  /** The instance's cache the bands items may come from (./bands-cache.ts), if any. */
  readonly cachedBands: BandsCache | undefined;
}

export interface SnapshotOptions {
  /**
   * Price calls take the workspace and category bands from the instance's cache, a few seconds old at most; the
   * bands job, which must see the bands it has just written, reads them from the table.
   */
  readonly cachedBands?: BandsCache;
}

/**
 * Round one reads what the lines name (products, customers, the workspace band); round two reads what those items
 * point to (category and customer bands, rates of the currencies they use that are not cached), less what round one
 * already read. Both rounds read eventually consistent, at half the price of a strong read.
 */
export async function readPricingSnapshot(
  workspaceId: string,
  lines: readonly PriceRequestLine[],
  baseCurrency: string,
  nowMs: number,
  options: SnapshotOptions = {},
): Promise<PricingSnapshot> {
  const externalOnly = [
    ...new Set(lines.flatMap((line) => (line.productSku === undefined && line.productExternalId ? [line.productExternalId] : []))),
  ];
  const skuByExternalId = externalOnly.length > 0 ? await resolveExternalIds(workspaceId, externalOnly) : new Map<string, string>();
  const skus = new Set(lines.flatMap((line) => line.productSku ?? skuByExternalId.get(line.productExternalId ?? '') ?? []));
  const customerIds = new Set(lines.flatMap(lineCustomerIds));
  const read: SnapshotRead = {
    workspaceId,
    baseCurrency,
    nowMs,
    products: new Map(),
    customers: new Map(),
    workspaceBand: undefined,
    workspaceWinLifts: new Map(),
    categoryBands: new Map(),
    customerBands: new Map(),
    rates: new Map(),
    ratesToRead: new Set(),
    requested: new Set(),
    cachedBands: options.cachedBands,
  };
  const skuOf = (line: PriceRequestLine) => line.productSku ?? skuByExternalId.get(line.productExternalId ?? '');

  // Round one also reads the bands of the categories this instance has seen the products in, so that a warm
  // instance usually needs no second round; a product that moved category only costs that round back.
  await readRound(read, [
    ...[...skus].map((sku) => keys.product(workspaceId, sku)),
    ...[...customerIds].map((id) => keys.customer(workspaceId, id)),
    keys.workspaceBands(workspaceId),
    ...lines.flatMap((line) => {
      const sku = skuOf(line);
      const category = sku === undefined ? undefined : knownCategories.get(`${workspaceId}|${sku}`);
      return category === undefined ? [] : bandKeys(workspaceId, category, lineCustomerIds(line)[0]);
    }),
  ]);
  await readRound(read, secondRoundKeys(read, lines, skuOf));
  const { products, customers, categoryBands, customerBands, workspaceBand, workspaceWinLifts, rates } = read;
  return { products, skuByExternalId, customers, categoryBands, customerBands, workspaceBand, workspaceWinLifts, rates };
}

/** What the items of round one point to: their bands, and the rates of their currencies that are not cached. */
function secondRoundKeys(
  read: SnapshotRead,
  lines: readonly PriceRequestLine[],
  skuOf: (line: PriceRequestLine) => string | undefined,
): PrimaryKey[] {
  const { workspaceId, products, customers } = read;
  const secondRound: PrimaryKey[] = [];
  for (const line of lines) {
    const sku = skuOf(line);
    const product = sku === undefined ? undefined : products.get(sku);
    const customerId = lineCustomerIds(line)[0];
    const customer = customerId === undefined ? undefined : customers.get(customerId);
    wantRate(read, customer?.currency);
    wantRate(read, product?.currency);
    if (!product) continue;
    knownCategories.set(`${workspaceId}|${product.sku}`, product.category);
    secondRound.push(...bandKeys(workspaceId, product.category, customer?.externalId));
  }
  for (const currency of read.ratesToRead) secondRound.push(keys.fxRate(workspaceId, currency));
  return secondRound;
}

function bandKeys(workspaceId: string, category: string, customerId: string | undefined): PrimaryKey[] {
  return [
    keys.categoryBands(workspaceId, category),
    ...(customerId === undefined ? [] : [keys.customerBands(workspaceId, customerId, category)]),
  ];
}

function wantRate(read: SnapshotRead, currency: string | undefined): void {
  const { rates, ratesToRead } = read;
  if (!currency || currency === read.baseCurrency || rates.has(currency) || ratesToRead.has(currency)) return;
  const cached = rateCache.peek(`${read.workspaceId}|${currency}`, read.nowMs);
  if (cached) rates.set(currency, cached);
  else ratesToRead.add(currency);
}

/** One round: the keys no earlier round asked for, read in parallel groups. */
async function readRound(read: SnapshotRead, itemKeys: PrimaryKey[]): Promise<void> {
  const fresh = itemKeys.filter((key) => {
    const text = `${key.PK}\u0000${key.SK}`;
    if (read.requested.has(text)) return false;
    read.requested.add(text);
    return true;
  });
  if (fresh.length === 0) return;
  const { cached, toRead, toReadConsistent } = read.cachedBands
    ? read.cachedBands.take(fresh, read.nowMs)
    : { cached: [], toRead: fresh, toReadConsistent: [] };
  const [found, replaced] = await Promise.all([
    toRead.length === 0 ? [] : getItems(toRead, { consistent: false, groupSize: Math.ceil(toRead.length / PARALLEL_READS) }),
    toReadConsistent.length === 0 ? [] : getItems(toReadConsistent, { consistent: true }),
  ]);
  read.cachedBands?.keep([...toRead, ...toReadConsistent], [...found, ...replaced], read.nowMs);
  absorb(read, [...cached, ...found, ...replaced]);
}

function absorb(read: SnapshotRead, items: Record<string, unknown>[]): void {
  for (const item of items) {
    switch (item.type) {
      case 'product': {
        const product = productView(item);
        read.products.set(product.sku, product);
        break;
      }
      case 'customer': {
        const customer = customerView(item);
        read.customers.set(customer.externalId, customer);
        break;
      }
      case 'workspaceBands':
        read.workspaceBand = typeof item.band === 'string' ? decodeBand(JSON.parse(item.band) as number[]) : undefined;
        read.workspaceWinLifts = decodeWinLifts(item.winLifts);
        break;
      case 'categoryBands': {
        const stored = readCategoryBandsItem(item);
        read.categoryBands.set(stored.category, stored);
        break;
      }
      case 'customerBands':
        read.customerBands.set(customerBandsKey(String(item.customerExternalId), String(item.category)), decodeBandMap(item.bands));
        break;
      case 'fxRate': {
        const rate = { rate: Number(item.rate), asOfMs: Number(item.asOfMs) };
        read.rates.set(String(item.currency), rate);
        rateCache.set(`${read.workspaceId}|${String(item.currency)}`, rate, read.nowMs);
        break;
      }
    }
  }
}
