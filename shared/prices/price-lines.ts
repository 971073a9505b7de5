// Pricing the lines of one call from its snapshot: who and what each line names, its currency, its bands, and its result line.
import { conversionFactor } from '#shared/pricing/currency.ts';
import { assembleLineBands, type LineBands, type PricedLine, type PricingProduct } from '#shared/pricing/model.ts';
import { priceLine } from '#shared/pricing/price-line.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { customerBandsKey, type CustomerView, type PricingSnapshot, type ProductView } from './inputs.ts';
import type { PriceRequestLine } from './request.ts';

export type LineErrorCode = 'unknown_product' | 'unknown_customer' | 'no_cost_basis' | 'fx_rate_unavailable' | 'fx_rate_stale';

export interface LineError {
  readonly ok: false;
  readonly error: { readonly code: LineErrorCode; readonly message: string; readonly param?: string };
}

/** The `ok: true` result line, in the contract's field order; storefront callers get it without the reasoning. */
export interface LineResult {
  readonly priceCents: number;
  readonly currency: string;
  readonly pricingDecisionId: string;
  readonly reason?: PricedLine['reason'];
  readonly reasonSummary?: string;
  readonly explanation?: PricedLine['explanation'];
  readonly guardrailsApplied: PricedLine['guardrailsApplied'];
  readonly confidence: PricedLine['confidence'];
  readonly confidenceScore: number;
  /** The product's data warnings, erp callers only (their messages name its cost); absent when it has none. */
  readonly warnings?: ProductView['warnings'];
  readonly ok: true;
}

/**
 * Who is asking decides what a line shows: an erp key sees the whole reasoning; a storefront key sees none of it,
 * because reasons reveal cost and margin, and is always held to MAP.
 */
export type Audience = 'erp' | 'storefront';

export interface CallContext {
  readonly baseCurrency: string;
  readonly settings: PricingSettings;
  readonly audience: Audience;
  readonly nowMs: number;
  readonly decisionIdOf: (lineIndex: number) => string;
}

const DAY_MS = 86_400_000;

function lineError(code: LineErrorCode, message: string, param?: string): LineError {
  return { ok: false, error: { code, message, ...(param === undefined ? {} : { param }) } };
}

function resolveProduct(line: PriceRequestLine, index: number, snapshot: PricingSnapshot): ProductView | LineError {
  const sku = line.productSku ?? snapshot.skuByExternalId.get(line.productExternalId ?? '');
  const product = sku === undefined ? undefined : snapshot.products.get(sku);
  const param = `lines[${index}].${line.productSku === undefined ? 'productExternalId' : 'productSku'}`;
  if (!product) return lineError('unknown_product', 'No product with this identifier is known to the workspace.', param);
  if (line.productSku !== undefined && line.productExternalId !== undefined && product.externalId !== line.productExternalId) {
    return lineError('unknown_product', 'productSku and productExternalId name different products.', `lines[${index}].productExternalId`);
  }
  return product;
}

function resolveCustomer(line: PriceRequestLine, index: number, snapshot: PricingSnapshot): CustomerView | LineError | undefined {
  const { customerId, customerExternalId } = line;
  if (customerId === undefined && customerExternalId === undefined) return undefined;
  const param = `lines[${index}].${customerId === undefined ? 'customerExternalId' : 'customerId'}`;
  if (customerId !== undefined && customerExternalId !== undefined && customerId !== customerExternalId) {
    return lineError(
      'unknown_customer',
      'customerId and customerExternalId name different customers.',
      `lines[${index}].customerExternalId`,
    );
  }
  const customer = snapshot.customers.get((customerId ?? customerExternalId) as string);
  return customer ?? lineError('unknown_customer', 'No customer with this identifier is known to the workspace.', param);
}

function isLineError(value: unknown): value is LineError {
  return typeof value === 'object' && value !== null && (value as LineError).ok === false;
}

/** A cost converted below a hundredth of a minor unit cannot carry a margin that rounds to a price. */
const MIN_CONVERTED_COST = 0.01;

/** The base currency's rate is 1; any other needs a rate no older than the settings allow. */
function rateOf(currency: string, snapshot: PricingSnapshot, context: CallContext, index: number): number | LineError {
  if (currency === context.baseCurrency) return 1;
  const rate = snapshot.rates.get(currency);
  if (!rate) {
    return lineError(
      'fx_rate_unavailable',
      `No exchange rate for ${currency} has been synced; quotes or orders in ${currency} bring one.`,
      `lines[${index}]`,
    );
  }
  if (context.nowMs - rate.asOfMs > context.settings.fxStaleDays * DAY_MS) {
    return lineError(
      'fx_rate_stale',
      `The newest exchange rate for ${currency} is from ${new Date(rate.asOfMs).toISOString()}, older than ${context.settings.fxStaleDays} days.`,
      `lines[${index}]`,
    );
  }
  return rate.rate;
}

/** A product's amounts in another currency: `factor` minor units of it per minor unit of the product's own. */
export function convertProduct(product: ProductView, factor: number): PricingProduct {
  const amount = (value: number | undefined) => (value === undefined ? undefined : value * factor);
  const optional = (name: 'mapCents' | 'floorCents' | 'ceilingCents') => {
    const value = amount(product[name]);
    return value === undefined ? {} : { [name]: value };
  };
  return {
    sku: product.sku,
    costCents: product.costCents * factor,
    currentPriceCents: product.currentPriceCents * factor,
    ...optional('mapCents'),
    ...optional('floorCents'),
    ...optional('ceilingCents'),
    ...(product.inStock === undefined ? {} : { inStock: product.inStock }),
    ...(product.stockOnHand === undefined ? {} : { stockOnHand: product.stockOnHand }),
  };
}

export function lineBands(product: ProductView, customer: CustomerView | undefined, snapshot: PricingSnapshot): LineBands {
  const segment = customer?.segment ?? '';
  const category = snapshot.categoryBands.get(product.category);
  return assembleLineBands({
    sku: product.sku,
    customerBands: customer ? snapshot.customerBands.get(customerBandsKey(customer.externalId, product.category)) : undefined,
    segmentSku: product.segmentBands.get(segment),
    segmentCategory: category?.segments.get(segment),
    category: category?.band,
    workspace: snapshot.workspaceBand,
    workspaceWinLift: snapshot.workspaceWinLifts?.get(segment),
  });
}

function priceOne(line: PriceRequestLine, index: number, snapshot: PricingSnapshot, context: CallContext): LineResult | LineError {
  const product = resolveProduct(line, index, snapshot);
  if (isLineError(product)) return product;
  const customer = resolveCustomer(line, index, snapshot);
  if (isLineError(customer)) return customer;
  if (product.costCents === 0) {
    return lineError('no_cost_basis', 'The product has no cost (costCents is 0), so no margin can be priced.', `lines[${index}]`);
  }
  // An empty currency on a product record means none, as it does on a customer.
  const productCurrency = product.currency || context.baseCurrency;
  const currency = customer?.currency || productCurrency;
  let factor = 1;
  if (currency !== productCurrency) {
    const from = rateOf(productCurrency, snapshot, context, index);
    if (isLineError(from)) return from;
    const to = rateOf(currency, snapshot, context, index);
    if (isLineError(to)) return to;
    factor = conversionFactor({ currency: productCurrency, rate: from }, { currency, rate: to });
    // Rates as synced may be far out (1e-130 is a number DynamoDB stores): amounts they give that cannot be priced
    // whole are refused rather than answered as nonsense.
    const largest = Math.max(product.costCents, product.currentPriceCents, product.mapCents ?? 0, product.floorCents ?? 0) * factor;
    if (!(largest <= Number.MAX_SAFE_INTEGER) || !(product.costCents * factor >= MIN_CONVERTED_COST)) {
      return lineError(
        'fx_rate_unavailable',
        `The exchange rates of ${productCurrency} and ${currency} convert this product's amounts beyond what can be priced.`,
        `lines[${index}]`,
      );
    }
  }
  const priced = priceLine(
    {
      product: convertProduct(product, factor),
      currency,
      hasCustomer: customer !== undefined,
      quantity: line.quantity,
      ...(line.orderValueCents === undefined ? {} : { orderValueCents: line.orderValueCents }),
      ...(line.orderTotalQuantity === undefined ? {} : { orderTotalQuantity: line.orderTotalQuantity }),
      enforceMap: context.audience === 'storefront' || context.settings.enforceMapForErp,
      nowMs: context.nowMs,
    },
    lineBands(product, customer, snapshot),
    context.settings,
  );
  const reasoning =
    context.audience === 'erp' ? { reason: priced.reason, reasonSummary: priced.reasonSummary, explanation: priced.explanation } : {};
  const warned = context.audience === 'erp' && product.warnings?.length ? { warnings: product.warnings } : {};
  return {
    priceCents: priced.priceCents,
    currency,
    pricingDecisionId: context.decisionIdOf(index),
    ...reasoning,
    guardrailsApplied: priced.guardrailsApplied,
    confidence: priced.confidence,
    confidenceScore: priced.confidenceScore,
    ...warned,
    ok: true,
  };
}

/** One result per line, in order; a line that cannot be priced carries its error in its place. */
export function priceLines(
  lines: readonly PriceRequestLine[],
  snapshot: PricingSnapshot,
  context: CallContext,
): Array<LineResult | LineError> {
  return lines.map((line, index) => priceOne(line, index, snapshot, context));
}
