// Bands as table items: the compact encoding of a band and a win model, and history lines read back from their items.
import type { Band, CategoryBands, HistoryLine, WinModel } from '../pricing/model.ts';

/**
 * A band is stored as a JSON array of ten numbers, not as a map of named attributes: a product item carries one per
 * segment and a customer's item one per SKU, and read costs go by item size.
 */
export type EncodedBand = [number, number, number, number, number, number, number, number, number, number];
export type EncodedWinModel = [number, number, number, number];

/** Seven significant digits: finer than any price a margin turns into, and about half the JSON of a full double. */
function compact(value: number): number {
  return Number(value.toPrecision(7));
}

export function encodeBand(band: Band): EncodedBand {
  return [
    compact(band.floor),
    compact(band.target),
    compact(band.stretch),
    compact(band.nEff),
    compact(band.medianQuantity),
    compact(band.cov),
    band.newestAtMs,
    compact(band.sumW),
    compact(band.sumW2),
    band.asOfMs,
  ];
}

export function decodeBand(encoded: readonly number[]): Band {
  const [floor, target, stretch, nEff, medianQuantity, cov, newestAtMs, sumW, sumW2, asOfMs] = encoded as EncodedBand;
  return { floor, target, stretch, nEff, medianQuantity, cov, newestAtMs, sumW, sumW2, asOfMs };
}

export function encodeWinModel(model: WinModel): EncodedWinModel {
  return [compact(model.intercept), compact(model.slope), model.closedQuotes, compact(model.nEff)];
}

export function decodeWinModel(encoded: readonly number[]): WinModel {
  const [intercept, slope, closedQuotes, nEff] = encoded as EncodedWinModel;
  return { intercept, slope, closedQuotes, nEff };
}

/** A map of bands by name (segment, or sku) as the JSON text one attribute holds. */
export function encodeBandMap(bands: ReadonlyMap<string, Band>): string {
  return JSON.stringify(Object.fromEntries([...bands].map(([name, band]) => [name, encodeBand(band)])));
}

export function decodeBandMap(json: unknown): Map<string, Band> {
  if (typeof json !== 'string') return new Map();
  const parsed = JSON.parse(json) as Record<string, number[]>;
  return new Map(Object.entries(parsed).map(([name, encoded]) => [name, decodeBand(encoded)]));
}

/** What the category's bands item holds besides its key. */
export interface CategoryBandsFields {
  readonly category: string;
  readonly band: EncodedBand | null;
  /** segment → [band, win model or null] */
  readonly segments: Record<string, [EncodedBand, EncodedWinModel | null]>;
}

export function categoryBandsFields(category: string, bands: CategoryBands): CategoryBandsFields {
  // fromEntries defines each segment as an own key, so that even a segment named __proto__ is kept.
  const segments: CategoryBandsFields['segments'] = Object.fromEntries(
    [...bands.segments].map(([segment, { band, winModel }]) => [segment, [encodeBand(band), winModel ? encodeWinModel(winModel) : null]]),
  );
  return { category, band: bands.category ? encodeBand(bands.category) : null, segments };
}

export interface StoredCategoryBands {
  readonly category: string;
  readonly band: Band | undefined;
  readonly segments: ReadonlyMap<string, { readonly band: Band; readonly winModel: WinModel | undefined }>;
}

/** The category item stores its segments as JSON text: segment names may be empty, which map keys may not. */
export function readCategoryBandsItem(item: Record<string, unknown>): StoredCategoryBands {
  const fields = JSON.parse(String(item.bands)) as CategoryBandsFields;
  return {
    category: fields.category,
    band: fields.band ? decodeBand(fields.band) : undefined,
    segments: new Map(
      Object.entries(fields.segments).map(([segment, [band, win]]) => [
        segment,
        { band: decodeBand(band), winModel: win ? decodeWinModel(win) : undefined },
      ]),
    ),
  };
}

/** The fields of a history line item that band computation reads: a projection keeps the read small. */
export const historyProjection = [
  'PK',
  'SK',
  'type',
  'externalId',
  'productSku',
  'customerExternalId',
  'segment',
  'quantity',
  'costCents',
  'priceCents',
  'atMs',
  'outcome',
  'sourceQuoteExternalId',
] as const;

export function historyLineOf(item: Record<string, unknown>): HistoryLine {
  const kind = item.type === 'quoteLine' ? 'quote' : 'order';
  return {
    kind,
    documentId: String(item.externalId),
    productSku: String(item.productSku),
    customerExternalId: typeof item.customerExternalId === 'string' ? item.customerExternalId : undefined,
    segment: typeof item.segment === 'string' ? item.segment : '',
    quantity: Number(item.quantity),
    costCents: Number(item.costCents),
    priceCents: Number(item.priceCents),
    atMs: Number(item.atMs),
    ...(kind === 'quote' ? { outcome: item.outcome as 'open' | 'won' | 'lost' } : {}),
    ...(typeof item.sourceQuoteExternalId === 'string' ? { sourceQuoteExternalId: item.sourceQuoteExternalId } : {}),
  };
}
