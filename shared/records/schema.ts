// Canonical records: the four entity kinds a connector stages, the shape of each, and the rank that orders them in a batch.
import * as v from 'valibot';
import { AttributesSchema } from './attributes.ts';
import { dateTime } from './date-time.ts';
import { IdentifierSchema, KeyTextSchema } from './identifier.ts';

export const entityKinds = ['product', 'customer', 'quote', 'order'] as const;
export const EntityKindSchema = v.picklist(entityKinds);
export type EntityKind = v.InferOutput<typeof EntityKindSchema>;

/** Records reference kinds of lower rank (a quote names products and a customer), so a batch stages them in rank order. */
export const entityRank: Readonly<Record<EntityKind, number>> = { product: 1, customer: 2, quote: 3, order: 4 };

export const SAFE_INT_MAX = Number.MAX_SAFE_INTEGER;

// One message per piece, given to every step of its pipe, so that a caller reads what is wanted, not which step failed.
const centsMessage = `an integer from 0 to ${SAFE_INT_MAX}`;
const signedMessage = `an integer from -${SAFE_INT_MAX} to ${SAFE_INT_MAX}`;
const quantityMessage = 'a number greater than 0';

/** A money amount in minor units. JSON numbers only: "5" is refused rather than coerced, and so is 5.5. */
export const CentsSchema = v.pipe(
  v.number(centsMessage),
  v.integer(centsMessage),
  v.minValue(0, centsMessage),
  v.maxValue(SAFE_INT_MAX, centsMessage),
);

/** A whole number the contract bounds on both sides of zero: stock on hand can run negative when oversold. */
export const SignedCounterSchema = v.pipe(
  v.number(signedMessage),
  v.integer(signedMessage),
  v.minValue(-SAFE_INT_MAX, signedMessage),
  v.maxValue(SAFE_INT_MAX, signedMessage),
);

/** DynamoDB stores numbers from 1e-130 to just under 1e126 in magnitude; anything outside would fail at the drain, long after the call. */
export function isStorableNumber(value: number): boolean {
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= 1e-130 && magnitude < 1e126);
}

// JSON cannot carry Infinity, but records can also be built in code, and pricing arithmetic must never see it.
const QuantitySchema = v.pipe(
  v.number(quantityMessage),
  v.finite(quantityMessage),
  v.gtValue(0, quantityMessage),
  v.check(isStorableNumber, 'a number greater than 0, from 1e-130 to 1e126'),
);
const exchangeRateMessage = 'a number from 1e-130 to 1e126 in magnitude, or 0';
const ExchangeRateSchema = v.pipe(
  v.number(exchangeRateMessage),
  v.finite(exchangeRateMessage),
  v.check(isStorableNumber, exchangeRateMessage),
);

export const DateTimeSchema = v.pipe(v.string(), dateTime());

/**
 * A quote or an order is drained as one table item per line, replaced all together when a newer version arrives;
 * 1,000 lines bounds what one record costs the drain, far above what a real quote or order carries.
 */
export const MAX_LINES_PER_DOCUMENT = 1000;
const linesMessage = `from 1 to ${MAX_LINES_PER_DOCUMENT} lines`;

export const ProductRecordSchema = v.strictObject({
  sku: IdentifierSchema,
  externalId: v.optional(IdentifierSchema),
  name: v.string(),
  category: KeyTextSchema,
  costCents: CentsSchema,
  currentPriceCents: CentsSchema,
  mapCents: v.optional(CentsSchema),
  floorCents: v.optional(CentsSchema),
  ceilingCents: v.optional(CentsSchema),
  isActive: v.optional(v.boolean()),
  inStock: v.optional(v.boolean()),
  stockOnHand: v.optional(SignedCounterSchema),
  brand: v.optional(v.string()),
  currency: v.optional(KeyTextSchema),
  attributes: v.optional(AttributesSchema),
});
export type ProductRecord = v.InferOutput<typeof ProductRecordSchema>;

export const CustomerRecordSchema = v.strictObject({
  name: v.string(),
  externalId: IdentifierSchema,
  segment: v.optional(KeyTextSchema),
  region: v.optional(v.nullable(v.string())),
  country: v.optional(v.nullable(v.string())),
  creditTerms: v.optional(v.nullable(v.string())),
  currency: v.optional(v.nullable(KeyTextSchema)),
  isActive: v.optional(v.boolean()),
  attributes: v.optional(AttributesSchema),
});
export type CustomerRecord = v.InferOutput<typeof CustomerRecordSchema>;

export const QuoteOutcomeSchema = v.picklist(['open', 'won', 'lost'], 'one of open, won or lost');
export type QuoteOutcome = v.InferOutput<typeof QuoteOutcomeSchema>;

export const QuoteLineSchema = v.strictObject({
  productSku: IdentifierSchema,
  quantity: QuantitySchema,
  costCents: CentsSchema,
  quotedPriceCents: CentsSchema,
  /** Must be sent even when null: a connector that forgot to carry the id is told so, rather than losing attribution. */
  pricingDecisionId: v.nullable(v.string()),
  serviceQuotedPriceCents: v.optional(v.nullable(SignedCounterSchema)),
  salespersonPriceReason: v.optional(v.nullable(v.string())),
  attributes: v.optional(AttributesSchema),
});
export type QuoteLine = v.InferOutput<typeof QuoteLineSchema>;

export const QuoteRecordSchema = v.strictObject({
  externalId: IdentifierSchema,
  customerExternalId: IdentifierSchema,
  outcome: QuoteOutcomeSchema,
  currency: v.optional(v.nullable(KeyTextSchema)),
  exchangeRate: v.optional(v.nullable(ExchangeRateSchema)),
  createdAt: DateTimeSchema,
  decidedAt: v.optional(DateTimeSchema),
  lostReason: v.optional(v.nullable(v.string())),
  lines: v.pipe(v.array(QuoteLineSchema), v.minLength(1, linesMessage), v.maxLength(MAX_LINES_PER_DOCUMENT, linesMessage)),
});
export type QuoteRecord = v.InferOutput<typeof QuoteRecordSchema>;

export const OrderLineSchema = v.strictObject({
  productSku: IdentifierSchema,
  quantity: QuantitySchema,
  costCents: CentsSchema,
  soldPriceCents: CentsSchema,
  attributes: v.optional(AttributesSchema),
});
export type OrderLine = v.InferOutput<typeof OrderLineSchema>;

export const OrderRecordSchema = v.strictObject({
  externalId: IdentifierSchema,
  customerExternalId: v.optional(v.nullable(IdentifierSchema)),
  sourceQuoteExternalId: v.optional(KeyTextSchema),
  currency: KeyTextSchema,
  exchangeRate: v.optional(v.nullable(ExchangeRateSchema)),
  soldAt: DateTimeSchema,
  lines: v.pipe(v.array(OrderLineSchema), v.minLength(1, linesMessage), v.maxLength(MAX_LINES_PER_DOCUMENT, linesMessage)),
});
export type OrderRecord = v.InferOutput<typeof OrderRecordSchema>;

export const recordSchemas = {
  product: ProductRecordSchema,
  customer: CustomerRecordSchema,
  quote: QuoteRecordSchema,
  order: OrderRecordSchema,
} as const satisfies Record<EntityKind, v.GenericSchema>;

export type RecordOf<K extends EntityKind> = v.InferOutput<(typeof recordSchemas)[K]>;
export type CanonicalRecord = RecordOf<EntityKind>;
