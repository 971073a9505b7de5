// Benchmark: the pure pricing engine, priceLine over a deterministic, realistic mix of lines and bands, in µs per line.
import type { Band, LineBands, LineInputs, WinModel } from '#shared/pricing/model.ts';
import { priceLine } from '#shared/pricing/price-line.ts';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { seededRandom } from '#platform/seeded-random.ts';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2025, 0, 1);
/** Distinct cases cycled through, enough that the engine cannot settle on one path. */
const CASES = 4096;
const WARMUP_CALLS = 50_000;
const DEFAULT_CALLS = 200_000;

function makeBand(random: () => number, centre: number, nEff: number): Band {
  const spread = 0.03 + random() * 0.1;
  return {
    floor: centre - spread,
    target: centre,
    stretch: centre + spread,
    nEff,
    medianQuantity: 1 + Math.floor(random() * 50),
    cov: random() * 0.6,
    newestAtMs: NOW - random() * 400 * DAY_MS,
    sumW: nEff,
    sumW2: nEff,
    asOfMs: NOW,
  };
}

/** A pooled model as the bands job writes them, on 60% of cases: half in price over list, some bent, all with support and offsets. */
function makeWinModel(random: () => number, centre: number): WinModel | undefined {
  const list = random() < 0.5;
  return random() < 0.6
    ? {
        intercept: list ? random() : 3 + random() * 4,
        slope: -(8 + random() * 20),
        closedQuotes: 50 + Math.floor(random() * 5000),
        nEff: 20 + random() * 2000,
        quantitySlope: -0.3 * random(),
        feature: list ? 'list' : 'margin',
        supportLow: list ? -0.3 : centre - 0.15,
        supportHigh: list ? 0.1 : centre + 0.15,
        slopeSe: 1 + random() * 5,
        bend: random() < 0.3 ? -10 * random() : 0,
        knot: list ? -0.05 : centre,
        categorySlope: -12,
        centroid: list ? -0.08 : centre,
        slopeShift: random() - 0.5,
        ownSlopeSe: 2 + random() * 5,
      }
    : undefined;
}

/** Mostly full chains, some thin ones, a few lines with no history at all; a third with a win model, half with customers. */
function makeCase(random: () => number): { inputs: LineInputs; bands: LineBands } {
  const costCents = 100 + Math.floor(random() * 200_000);
  const centre = 0.15 + random() * 0.35;
  const currentPriceCents = Math.round(costCents / (1 - centre - (random() - 0.5) * 0.1));
  const history = random();
  const winModel = makeWinModel(random, centre);
  const bands: LineBands =
    history < 0.05
      ? {}
      : {
          workspace: makeBand(random, 0.3, 5000),
          category: makeBand(random, centre + 0.02, 50 + random() * 2000),
          segmentCategory: history < 0.15 ? undefined : makeBand(random, centre, 20 + random() * 500),
          segmentSku: history < 0.4 ? undefined : { ...makeBand(random, centre - 0.01, 1 + random() * 80), winOffset: random() - 0.5 },
          customerWinOffset: random() - 0.5,
          customerSku: random() < 0.5 ? makeBand(random, centre + (random() - 0.5) * 0.08, 1 + random() * 30) : undefined,
          winModel,
        };
  const guard = random();
  return {
    inputs: {
      product: {
        sku: 'SKU',
        costCents,
        currentPriceCents,
        floorCents: guard < 0.2 ? costCents * 1.2 : undefined,
        mapCents: guard < 0.1 ? currentPriceCents * 0.95 : undefined,
        ceilingCents: guard > 0.9 ? currentPriceCents * 1.05 : undefined,
        stockOnHand: random() < 0.3 ? Math.floor(random() * 30) : undefined,
      },
      currency: 'USD',
      hasCustomer: bands.customerSku !== undefined || random() < 0.2,
      quantity: 1 + Math.floor(random() ** 3 * 500),
      orderValueCents: random() < 0.3 ? Math.floor(random() * 10_000_000) : undefined,
      enforceMap: random() < 0.5,
      nowMs: NOW,
    },
    bands,
  };
}

/** Prices `lines` lines (default 200,000) after a warm-up, and returns the mean time per line in microseconds. */
export async function benchEngine(options: { lines?: number } = {}): Promise<{ microsPerLine: number; lines: number }> {
  const lines = options.lines ?? DEFAULT_CALLS;
  // A fixed seed, so that every run prices the same lines.
  const random = seededRandom(20250101);
  const cases = Array.from({ length: CASES }, () => makeCase(random));
  const settings = defaultPricingSettings;
  // The checksum keeps the results alive, so that the optimiser cannot drop the calls being timed.
  let checksum = 0;
  const run = (count: number) => {
    for (let i = 0; i < count; i++) {
      const item = cases[i % CASES];
      if (item) checksum += priceLine(item.inputs, item.bands, settings).priceCents;
    }
  };
  run(WARMUP_CALLS);
  // Let anything the warm-up queued run before the clock starts.
  await new Promise((resolve) => setImmediate(resolve));
  const started = performance.now();
  run(lines);
  const elapsed = performance.now() - started;
  if (!Number.isFinite(checksum)) throw new Error('priceLine returned a non-finite price');
  return { microsPerLine: (elapsed * 1000) / lines, lines };
}
