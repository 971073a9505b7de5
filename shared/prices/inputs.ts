// What a price call reads: its products, customers, bands and FX rates, deduplicated across lines in two BatchGetItem rounds.
import { decodeBand, decodeBandMap, readCategoryBandsItem, type StoredCategoryBands } from '#shared/bands/items.ts';
import { BoundedMap, ExpiringCache } from '#platform/caches.ts';
import type { Band, PricingProduct } from '#shared/pricing/model.ts';
import { getItems } from '#platform/table/bulk.ts';
import { keys, lookupKeys, type PrimaryKey, skuOfProductKey } from '#platform/table/keys.ts';
import { queryLookup } from '#platform/table/query.ts';
import type { PriceRequestLine } from './request.ts';

/** A product item as a call prices it: its amounts in its own currency, not yet converted. */
export interface ProductView extends PricingProduct {
  readonly externalId?: string;
  readonly name?: string;
  readonly category: string;
  readonly currency?: string;
  /** segment → segment × SKU band, kept on the product item so that reading the product reads them too. */
  readonly segmentBands: ReadonlyMap<string, Band>;
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
  const { segmentBands, ...fields } = item;
  return { ...(fields as unknown as Omit<ProductView, 'segmentBands'>), segmentBands: decodeBandMap(segmentBands) };
}

function customerView(item: Record<string, unknown>): CustomerView {
  return {
    externalId: String(item.externalId),
    segment: typeof item.segment === 'string' ? item.segment : '',
    ...(typeof item.currency === 'string' && item.currency !== '' ? { currency: item.currency } : {}),
  };
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
): Promise<PricingSnapshot> {
  const externalOnly = [
    ...new Set(lines.flatMap((line) => (line.productSku === undefined && line.productExternalId ? [line.productExternalId] : []))),
  ];
  const skuByExternalId = externalOnly.length > 0 ? await resolveExternalIds(workspaceId, externalOnly) : new Map<string, string>();
  const skus = new Set(lines.flatMap((line) => line.productSku ?? skuByExternalId.get(line.productExternalId ?? '') ?? []));
  const customerIds = new Set(lines.flatMap(lineCustomerIds));

  const rates = new Map<string, FxRate>();
  const ratesToRead = new Set<string>();
  const wantRate = (currency: string | undefined) => {
    if (!currency || currency === baseCurrency || rates.has(currency) || ratesToRead.has(currency)) return;
    const cached = rateCache.peek(`${workspaceId}|${currency}`, nowMs);
    if (cached) rates.set(currency, cached);
    else ratesToRead.add(currency);
  };

  const products = new Map<string, ProductView>();
  const customers = new Map<string, CustomerView>();
  let workspaceBand: Band | undefined;
  const categoryBands = new Map<string, StoredCategoryBands>();
  const customerBands = new Map<string, ReadonlyMap<string, Band>>();

  const absorb = (items: Record<string, unknown>[]) => {
    for (const item of items) {
      switch (item.type) {
        case 'product': {
          const product = productView(item);
          products.set(product.sku, product);
          break;
        }
        case 'customer': {
          const customer = customerView(item);
          customers.set(customer.externalId, customer);
          break;
        }
        case 'workspaceBands':
          workspaceBand = typeof item.band === 'string' ? decodeBand(JSON.parse(item.band) as number[]) : undefined;
          break;
        case 'categoryBands': {
          const stored = readCategoryBandsItem(item);
          categoryBands.set(stored.category, stored);
          break;
        }
        case 'customerBands':
          customerBands.set(customerBandsKey(String(item.customerExternalId), String(item.category)), decodeBandMap(item.bands));
          break;
        case 'fxRate': {
          const rate = { rate: Number(item.rate), asOfMs: Number(item.asOfMs) };
          rates.set(String(item.currency), rate);
          rateCache.set(`${workspaceId}|${String(item.currency)}`, rate, nowMs);
          break;
        }
      }
    }
  };

  const requested = new Set<string>();
  const round = async (itemKeys: PrimaryKey[]) => {
    const fresh = itemKeys.filter((key) => {
      const text = `${key.PK}\u0000${key.SK}`;
      if (requested.has(text)) return false;
      requested.add(text);
      return true;
    });
    if (fresh.length === 0) return;
    absorb(await getItems(fresh, { consistent: false, groupSize: Math.ceil(fresh.length / PARALLEL_READS) }));
  };
  const bandKeys = (category: string, customerId: string | undefined): PrimaryKey[] => [
    keys.categoryBands(workspaceId, category),
    ...(customerId === undefined ? [] : [keys.customerBands(workspaceId, customerId, category)]),
  ];
  const skuOf = (line: PriceRequestLine) => line.productSku ?? skuByExternalId.get(line.productExternalId ?? '');

  // Round one also reads the bands of the categories this instance has seen the products in, so that a warm
  // instance usually needs no second round; a product that moved category only costs that round back.
  await round([
    ...[...skus].map((sku) => keys.product(workspaceId, sku)),
    ...[...customerIds].map((id) => keys.customer(workspaceId, id)),
    keys.workspaceBands(workspaceId),
    ...lines.flatMap((line) => {
      const sku = skuOf(line);
      const category = sku === undefined ? undefined : knownCategories.get(`${workspaceId}|${sku}`);
      return category === undefined ? [] : bandKeys(category, lineCustomerIds(line)[0]);
    }),
  ]);

  const secondRound: PrimaryKey[] = [];
  for (const line of lines) {
    const sku = skuOf(line);
    const product = sku === undefined ? undefined : products.get(sku);
    const customerId = lineCustomerIds(line)[0];
    const customer = customerId === undefined ? undefined : customers.get(customerId);
    wantRate(customer?.currency);
    wantRate(product?.currency);
    if (!product) continue;
    knownCategories.set(`${workspaceId}|${product.sku}`, product.category);
    secondRound.push(...bandKeys(product.category, customer?.externalId));
  }
  for (const currency of ratesToRead) secondRound.push(keys.fxRate(workspaceId, currency));
  await round(secondRound);
  return { products, skuByExternalId, customers, categoryBands, customerBands, workspaceBand, rates };
}
