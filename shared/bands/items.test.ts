// Unit tests of bands as table items: the compact band encoding, band maps, the category bands item and history lines.
import { describe, expect, it } from 'vitest';
import type { Band, CategoryBands, WinModel } from '#shared/pricing/model.ts';
import {
  categoryBandsFields,
  decodeBand,
  decodeBandMap,
  decodeWinLifts,
  decodeWinModel,
  encodeBand,
  encodeBandMap,
  encodeWinLifts,
  encodeWinModel,
  legacyEntriesOf,
  readCategoryBandsItem,
} from './items.ts';
import { currentLines } from './history-log.ts';

const NEWEST = Date.UTC(2026, 1, 14, 9, 30, 0, 123);
const AS_OF = Date.UTC(2026, 2, 1, 0, 0, 0, 7);

/** A band whose every number has more than seven significant digits. */
const precise: Band = {
  floor: 0.123456789,
  target: 0.4567891234,
  stretch: 0.55,
  nEff: 12.3456789,
  medianQuantity: 10,
  cov: 0.0123456789,
  newestAtMs: NEWEST,
  sumW: 123.456789,
  sumW2: 1234567.891,
  asOfMs: AS_OF,
};

/** The same band at seven significant digits; the two dates are kept whole. */
const compacted: Band = {
  floor: 0.1234568,
  target: 0.4567891,
  stretch: 0.55,
  nEff: 12.34568,
  medianQuantity: 10,
  cov: 0.01234568,
  newestAtMs: NEWEST,
  sumW: 123.4568,
  sumW2: 1234568,
  asOfMs: AS_OF,
};

/** Bands told apart by their floor, each already at seven digits so that it round-trips exactly. */
function band(floor: number): Band {
  return { ...compacted, floor };
}

const winModel: WinModel = { intercept: 2.123456789, slope: -8.87654321, closedQuotes: 123, nEff: 45.6789012 };

describe('a band as ten numbers', () => {
  it('encodes in a fixed order, at seven significant digits except for its two dates', () => {
    expect(encodeBand(precise)).toEqual([0.1234568, 0.4567891, 0.55, 12.34568, 10, 0.01234568, NEWEST, 123.4568, 1234568, AS_OF]);
  });

  it('decodes to the band it encoded, to seven significant digits', () => {
    expect(decodeBand(encodeBand(precise))).toEqual(compacted);
  });

  it('leaves a band already at seven digits unchanged through a round trip', () => {
    expect(decodeBand(encodeBand(compacted))).toEqual(compacted);
  });

  it('keeps the magnitude of large numbers while dropping their low digits', () => {
    expect(encodeBand({ ...precise, sumW2: 123_456_789 })[8]).toBe(123_456_800);
  });

  it('survives JSON, as the table stores it', () => {
    expect(decodeBand(JSON.parse(JSON.stringify(encodeBand(precise))) as number[])).toEqual(compacted);
  });

  it('carries a segment × SKU band’s buyer groups after its win offset, three numbers each at four digits', () => {
    const buyers = [
      { weight: 12.34567, offset: -0.123456, quantity: 40 },
      { weight: 3.5, offset: 0.25, quantity: 7.123456 },
    ];
    const encoded = encodeBand({ ...compacted, winOffset: 0.5, buyers });
    expect(encoded.slice(10)).toEqual([0.5, 12.35, -0.1235, 40, 3.5, 0.25, 7.123]);
    expect(decodeBand(encoded).buyers).toEqual([
      { weight: 12.35, offset: -0.1235, quantity: 40 },
      { weight: 3.5, offset: 0.25, quantity: 7.123 },
    ]);
  });
});

describe('a win model as four numbers', () => {
  it('encodes at seven significant digits, its count of closed quotes whole', () => {
    expect(encodeWinModel(winModel)).toEqual([2.123457, -8.876543, 123, 45.6789]);
  });

  it('decodes to the model it encoded', () => {
    expect(decodeWinModel(encodeWinModel(winModel))).toEqual({ intercept: 2.123457, slope: -8.876543, closedQuotes: 123, nEff: 45.6789 });
  });
});

describe('the segments’ win lifts on the workspace bands item', () => {
  it('read back as written, to seven significant digits', () => {
    const lifts = decodeWinLifts(
      encodeWinLifts(
        new Map([
          ['smb', 0.0312345678],
          ['enterprise', -0.004],
        ]),
      ),
    );
    expect([...lifts]).toEqual([
      ['smb', 0.03123457],
      ['enterprise', -0.004],
    ]);
  });

  it('are stored as nothing when no segment has one, and read as none from an item written before them', () => {
    expect(encodeWinLifts(new Map())).toBeNull();
    expect(decodeWinLifts(undefined).size).toBe(0);
    expect(decodeWinLifts(null).size).toBe(0);
  });

  it('drop a value that is not a finite number', () => {
    expect([...decodeWinLifts('{"smb":"x","enterprise":0.01}')]).toEqual([['enterprise', 0.01]]);
  });
});

describe('a map of bands by name', () => {
  it('encodes as JSON text of encoded bands by name', () => {
    const text = encodeBandMap(new Map([['smb', precise]]));
    expect(JSON.parse(text)).toEqual({ smb: encodeBand(precise) });
  });

  it('round-trips every name, the empty segment name included', () => {
    const bands = new Map([
      ['', band(0.1)],
      ['smb', band(0.2)],
      ['enterprise "key" accounts', band(0.3)],
    ]);
    const decoded = decodeBandMap(encodeBandMap(bands));
    expect([...decoded.keys()]).toEqual(['', 'smb', 'enterprise "key" accounts']);
    expect(decoded).toEqual(bands);
  });

  it('round-trips an empty map', () => {
    expect(encodeBandMap(new Map())).toBe('{}');
    expect(decodeBandMap('{}')).toEqual(new Map());
  });

  it('reads an absent attribute as no bands', () => {
    expect(decodeBandMap(undefined)).toEqual(new Map());
    expect(decodeBandMap(null)).toEqual(new Map());
  });
});

describe('the category bands item', () => {
  const bands: CategoryBands = {
    category: band(0.15),
    segments: new Map([
      ['', { band: band(0.2), winModel: undefined }],
      ['smb', { band: band(0.25), winModel: { intercept: 2, slope: -8, closedQuotes: 80, nEff: 60.5 } }],
    ]),
    segmentSkus: new Map([['SKU-1', new Map([['smb', band(0.3)]])]]),
    customerSkus: new Map([['C-1', new Map([['SKU-1', band(0.35)]])]]),
  };

  it('holds the category, its band and each segment band with its win model or null', () => {
    expect(categoryBandsFields('Fasteners', bands)).toEqual({
      category: 'Fasteners',
      band: encodeBand(band(0.15)),
      segments: {
        '': [encodeBand(band(0.2)), null],
        smb: [encodeBand(band(0.25)), [2, -8, 80, 60.5]],
      },
    });
  });

  it('reads back what it holds, the unnamed segment included', () => {
    const stored = readCategoryBandsItem({ type: 'categoryBands', bands: JSON.stringify(categoryBandsFields('Fasteners', bands)) });
    expect(stored).toEqual({
      category: 'Fasteners',
      band: band(0.15),
      segments: new Map([
        ['', { band: band(0.2), winModel: undefined }],
        ['smb', { band: band(0.25), winModel: { intercept: 2, slope: -8, closedQuotes: 80, nEff: 60.5 } }],
      ]),
    });
    expect(stored.segments.get('')?.winModel).toBeUndefined();
  });

  it('keeps a segment whatever its name, __proto__ included', () => {
    const odd: CategoryBands = { ...bands, segments: new Map([['__proto__', { band: band(0.2), winModel: undefined }]]) };
    const stored = readCategoryBandsItem({ bands: JSON.stringify(categoryBandsFields('Fasteners', odd)) });
    expect([...stored.segments.keys()]).toEqual(['__proto__']);
    expect(stored.segments.get('__proto__')?.band).toEqual(band(0.2));
  });

  it('stores a category without a band of its own as null and reads it back as undefined', () => {
    const fields = categoryBandsFields('Adhesives', { ...bands, category: undefined, segments: new Map() });
    expect(fields).toEqual({ category: 'Adhesives', band: null, segments: {} });
    const stored = readCategoryBandsItem({ bands: JSON.stringify(fields) });
    expect(stored.band).toBeUndefined();
    expect(stored.segments.size).toBe(0);
  });
});

describe('a history line of the older layout read from its item', () => {
  const common = {
    externalId: 'Q-100',
    productSku: 'SKU-1',
    quantity: 4,
    costCents: 5500,
    priceCents: 9000,
    atMs: NEWEST,
    expiresAt: 4_000_000_000,
  };
  const read = (item: Record<string, unknown>) => currentLines('Fasteners', legacyEntriesOf([item]), NEWEST);

  it('reads a quote line with its customer, segment and outcome', () => {
    const [line] = read({ ...common, type: 'quoteLine', customerExternalId: 'C-1', segment: 'smb', outcome: 'won' });
    expect(line).toStrictEqual({
      kind: 'quote',
      documentId: 'Q-100',
      productSku: 'SKU-1',
      customerExternalId: 'C-1',
      segment: 'smb',
      quantity: 4,
      costCents: 5500,
      priceCents: 9000,
      atMs: NEWEST,
      outcome: 'won',
      category: 'Fasteners',
    });
  });

  it('reads an order line with the quote it came from, and no outcome', () => {
    const [line] = read({
      ...common,
      type: 'orderLine',
      externalId: 'O-7',
      customerExternalId: 'C-1',
      segment: 'smb',
      sourceQuoteExternalId: 'Q-100',
      outcome: 'won',
    });
    expect(line).toMatchObject({ kind: 'order', documentId: 'O-7', sourceQuoteExternalId: 'Q-100' });
    expect(line).not.toHaveProperty('outcome');
  });

  it('reads a line without a customer as having none, in the unnamed segment', () => {
    const [line] = read({ ...common, type: 'orderLine', sourceQuoteExternalId: null });
    expect(line?.customerExternalId).toBeUndefined();
    expect(line?.segment).toBe('');
    expect(line).not.toHaveProperty('sourceQuoteExternalId');
    expect(line).not.toHaveProperty('outcome');
  });

  it("gathers a document's line items into one entry of version 0", () => {
    const entries = legacyEntriesOf([
      { ...common, type: 'quoteLine', outcome: 'won' },
      { ...common, type: 'quoteLine', outcome: 'won', productSku: 'SKU-2' },
    ]);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ version: 0, lines: [{ productSku: 'SKU-1' }, { productSku: 'SKU-2' }] });
  });
});

describe('a pooled win model and the offsets on bands', () => {
  const model: WinModel = {
    intercept: 0.5,
    slope: -8,
    closedQuotes: 400,
    nEff: 321.5,
    quantitySlope: -0.25,
    feature: 'list',
    supportLow: -0.3,
    supportHigh: 0.1,
    slopeSe: 1.5,
    bend: -2,
    knot: -0.05,
    categorySlope: -7.5,
    centroid: -0.1,
    slopeShift: -0.5,
    ownSlopeSe: 2,
    quantitySlopeSe: 0.08,
    quantityShift: 0.04,
  };

  /** A segment's curve in the other feature, at seven digits. */
  const own = {
    feature: 'margin' as const,
    intercept: 2.5,
    slope: -9,
    centroid: 0.3,
    supportLow: 0.2,
    supportHigh: 0.4,
    slopeSe: 1.25,
    levelSe: 0.2,
  };

  it('round-trips every field of the pooled model', () => {
    expect(decodeWinModel(encodeWinModel(model))).toEqual(model);
  });

  it("round-trips a segment's level error, its evidence between the features and its curve in the other one", () => {
    const full: WinModel = { ...model, levelSe: 0.15, listGain: 3.5, other: own };
    expect(decodeWinModel(encodeWinModel(full))).toEqual(full);
    expect(encodeWinModel(full)).toHaveLength(encodeWinModel(model).length + 11);
    const gainOnly: WinModel = { ...model, levelSe: 0.15, listGain: -1, unpooled: true };
    expect(decodeWinModel(encodeWinModel(gainOnly))).toEqual(gainOnly);
  });

  it('round-trips a swapped model with its own curve whole, and reads an item stored before swaps kept it as unswapped', () => {
    const swapped: WinModel = {
      ...model,
      levelSe: 0.15,
      listGain: 3.5,
      other: { ...own, bend: -3, knot: 0.31, categorySlope: -8.5 },
      swapped: true,
    };
    expect(decodeWinModel(encodeWinModel(swapped))).toEqual(swapped);
    const older = encodeWinModel(swapped).slice(0, encodeWinModel(model).length + 11);
    expect(decodeWinModel(older)).toEqual({ ...model, levelSe: 0.15, listGain: 3.5, other: own });
  });

  it('keeps a band without an offset at ten numbers, and carries an offset as the eleventh', () => {
    expect(encodeBand(compacted)).toHaveLength(10);
    const withOffset = { ...compacted, winOffset: 0.25 };
    expect(encodeBand(withOffset)).toHaveLength(11);
    expect(decodeBand(encodeBand(withOffset))).toEqual(withOffset);
  });
});
