// Bands as table items: the compact encoding of a band and a win model, and the older layout's history line items read back.
import type { LoggedDocument } from './history-log.ts';
import type { Band, BuyerGroup, CategoryBands, WinModel } from '#shared/pricing/model.ts';

/**
 * A band is stored as a JSON array of ten numbers, not as a map of named attributes: a product item carries one per
 * segment and a customer's item one per SKU, and read costs go by item size. An eleventh is its win offset; a segment
 * × SKU band's buyer groups follow it, three numbers each (about 60 bytes for the three groups of a segment).
 */
export type EncodedBand = number[];
/**
 * Four numbers for a curve of margin alone; eleven for a pooled fit's: then also the quantity slope, the support, the
 * feature (1 = list), the slope's standard error, the bend and its knot.
 */
export type EncodedWinModel = [number, number, number, number] | number[];

/** Seven significant digits: finer than any price a margin turns into, and about half the JSON of a full double. */
function compact(value: number): number {
  return Number(value.toPrecision(7));
}

/** Four significant digits for a buyer group: its weight, offset and quantity move a price by far less than a cent's worth. */
function brief(value: number): number {
  return Number(value.toPrecision(4)) + 0;
}

function encodeBuyers(buyers: readonly BuyerGroup[] | undefined): number[] {
  return (buyers ?? []).flatMap((group) => [brief(group.weight), brief(group.offset), brief(group.quantity)]);
}

function decodeBuyers(rest: readonly number[]): BuyerGroup[] {
  const groups: BuyerGroup[] = [];
  for (let i = 0; i + 2 < rest.length; i += 3) {
    groups.push({ weight: rest[i] as number, offset: rest[i + 1] as number, quantity: rest[i + 2] as number });
  }
  return groups;
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
    ...(band.winOffset === undefined ? [] : [compact(band.winOffset), ...encodeBuyers(band.buyers)]),
  ];
}

export function decodeBand(encoded: readonly number[]): Band {
  const [floor, target, stretch, nEff, medianQuantity, cov, newestAtMs, sumW, sumW2, asOfMs, winOffset] = encoded as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number | undefined,
  ];
  const band = { floor, target, stretch, nEff, medianQuantity, cov, newestAtMs, sumW, sumW2, asOfMs };
  if (winOffset === undefined) return band;
  const buyers = decodeBuyers(encoded.slice(11));
  return buyers.length > 0 ? { ...band, winOffset, buyers } : { ...band, winOffset };
}

export function encodeWinModel(model: WinModel): EncodedWinModel {
  const curve: EncodedWinModel = [compact(model.intercept), compact(model.slope), model.closedQuotes, compact(model.nEff)];
  if (model.quantitySlope === undefined || model.supportLow === undefined || model.supportHigh === undefined) return curve;
  return [
    ...curve,
    compact(model.quantitySlope),
    compact(model.supportLow),
    compact(model.supportHigh),
    model.feature === 'list' ? 1 : 0,
    compact(model.slopeSe ?? Number.MAX_VALUE),
    compact(model.bend ?? 0),
    compact(model.knot ?? 0),
    compact(model.categorySlope ?? model.slope),
    compact(model.centroid ?? 0),
    compact(model.slopeShift ?? 0),
    compact(model.ownSlopeSe ?? model.slopeSe ?? Number.MAX_VALUE),
    compact(model.quantitySlopeSe ?? Number.MAX_VALUE),
    compact(model.quantityShift ?? 0),
    ...(model.levelSe === undefined ? [] : encodeSegmentEvidence(model)),
  ];
}

/**
 * The level's standard error, whether a thin category's model is unpooled, the segment's evidence between the two
 * features and its curve in the other one (with, on a swapped model, four numbers more for its own curve): two to
 * fifteen numbers more on each segment's model (about 120–160 bytes), which the category's bands item carries.
 */
function encodeSegmentEvidence(model: WinModel): number[] {
  const head = [compact(model.levelSe ?? Number.MAX_VALUE), model.unpooled ? 1 : 0];
  if (model.listGain === undefined) return head;
  const other = model.other;
  if (!other) return [...head, compact(model.listGain)];
  return [
    ...head,
    compact(model.listGain),
    other.feature === 'list' ? 1 : 0,
    compact(other.intercept),
    compact(other.slope),
    compact(other.centroid),
    compact(other.supportLow),
    compact(other.supportHigh),
    compact(other.slopeSe),
    compact(other.levelSe),
    // A swapped model's own curve: its bend, knot and category slope, so that swapping back restores it whole.
    ...(model.swapped ? [1, compact(other.bend ?? 0), compact(other.knot ?? 0), compact(other.categorySlope ?? other.slope)] : []),
  ];
}

function decodeSegmentEvidence(rest: readonly number[]): Pick<WinModel, 'levelSe' | 'unpooled' | 'listGain' | 'other' | 'swapped'> {
  const [
    levelSe,
    unpooledFlag,
    listGain,
    feature,
    intercept,
    slope,
    centroid,
    supportLow,
    supportHigh,
    slopeSe,
    otherLevelSe,
    swappedFlag,
  ] = rest;
  if (levelSe === undefined) return {};
  const head = unpooledFlag === 1 ? { levelSe, unpooled: true } : { levelSe };
  if (listGain === undefined) return head;
  if (otherLevelSe === undefined) return { ...head, listGain };
  const other = {
    feature: feature === 1 ? ('list' as const) : ('margin' as const),
    intercept: intercept ?? 0,
    slope: slope ?? 0,
    centroid: centroid ?? 0,
    supportLow: supportLow ?? 0,
    supportHigh: supportHigh ?? 0,
    slopeSe: slopeSe ?? Number.MAX_VALUE,
    levelSe: otherLevelSe,
  };
  if (swappedFlag !== 1) return { ...head, listGain, other };
  const [bend = 0, knot = 0, categorySlope = other.slope] = rest.slice(12);
  return { ...head, listGain, other: { ...other, bend, knot, categorySlope }, swapped: true };
}

export function decodeWinModel(encoded: readonly number[]): WinModel {
  const [
    intercept = 0,
    slope = 0,
    closedQuotes = 0,
    nEff = 0,
    quantitySlope,
    supportLow,
    supportHigh,
    feature,
    slopeSe,
    bend,
    knot,
    categorySlope,
    centroid,
    slopeShift,
    ownSlopeSe,
    quantitySlopeSe,
    quantityShift,
    ...rest
  ] = encoded;
  const curve = { intercept, slope, closedQuotes, nEff };
  if (quantitySlope === undefined || supportLow === undefined || supportHigh === undefined) return curve;
  return {
    ...curve,
    quantitySlope,
    supportLow,
    supportHigh,
    feature: feature === 1 ? 'list' : 'margin',
    slopeSe: slopeSe ?? Number.MAX_VALUE,
    bend: bend ?? 0,
    knot: knot ?? 0,
    categorySlope: categorySlope ?? slope,
    centroid: centroid ?? 0,
    slopeShift: slopeShift ?? 0,
    ownSlopeSe: ownSlopeSe ?? slopeSe ?? Number.MAX_VALUE,
    quantitySlopeSe: quantitySlopeSe ?? Number.MAX_VALUE,
    quantityShift: quantityShift ?? 0,
    ...decodeSegmentEvidence(rest),
  };
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

/** Each segment's win lift (win-lift.ts) on the workspace bands item, as one JSON object of compact numbers. */
export function encodeWinLifts(lifts: ReadonlyMap<string, number>): string | null {
  return lifts.size === 0 ? null : JSON.stringify(Object.fromEntries([...lifts].map(([segment, lift]) => [segment, compact(lift)])));
}

/** An item written before the lifts were stored has none: its thin categories price at their realised margins. */
export function decodeWinLifts(json: unknown): Map<string, number> {
  if (typeof json !== 'string') return new Map();
  const parsed = JSON.parse(json) as Record<string, unknown>;
  return new Map(
    Object.entries(parsed).flatMap(([segment, lift]) => (typeof lift === 'number' && Number.isFinite(lift) ? [[segment, lift]] : [])),
  );
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

/** The fields of a line item of the older layout (a line item per line) that the history log's readers need. */
export const legacyLineProjection = [
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
  'decidedAtMs',
  'currency',
  'exchangeRate',
  'expiresAt',
] as const;

/** Line items of the older layout as version-0 log entries, one per document. */
export function legacyEntriesOf(items: readonly Record<string, unknown>[]): LoggedDocument[] {
  const documents = new Map<string, LoggedDocument & { lines: LoggedDocument['lines'][number][] }>();
  for (const item of items) {
    const kind = item.type === 'quoteLine' ? 'quote' : 'order';
    const documentId = String(item.externalId);
    const key = `${kind}#${documentId}`;
    let document = documents.get(key);
    if (!document) {
      document = {
        kind,
        documentId,
        version: 0,
        expiresAt: typeof item.expiresAt === 'number' ? item.expiresAt : Number.MAX_SAFE_INTEGER,
        customerExternalId: typeof item.customerExternalId === 'string' ? item.customerExternalId : undefined,
        segment: typeof item.segment === 'string' ? item.segment : '',
        atMs: Number(item.atMs),
        ...(kind === 'quote' ? { outcome: item.outcome as 'open' | 'won' | 'lost' } : {}),
        ...(typeof item.sourceQuoteExternalId === 'string' ? { sourceQuoteExternalId: item.sourceQuoteExternalId } : {}),
        ...(typeof item.decidedAtMs === 'number' ? { decidedAtMs: item.decidedAtMs } : {}),
        ...(typeof item.currency === 'string' && item.currency !== '' ? { currency: item.currency } : {}),
        ...(typeof item.exchangeRate === 'number' ? { exchangeRate: item.exchangeRate } : {}),
        lines: [],
      };
      documents.set(key, document);
    }
    document.lines.push({
      productSku: String(item.productSku),
      quantity: Number(item.quantity),
      costCents: Number(item.costCents),
      priceCents: Number(item.priceCents),
    });
  }
  return [...documents.values()];
}
