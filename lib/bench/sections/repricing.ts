// The bench section of repricing: a batch of orders on top of a catalogue, and what its bands job does to reprice every product of the categories it moved.
import { jobCountLines, perThousandRecords } from '#lib/bench/drain-counts.ts';
import { ingestBatch } from '#lib/bench/ingest.ts';
import { section } from '#lib/bench/section.ts';
import { sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';

const PRODUCTS = Number(process.env.BENCH_REPRICE_PRODUCTS ?? 4_000);
const ORDERS = Number(process.env.BENCH_REPRICE_ORDERS ?? 1_000);
/** The orders' lines are kept to this share of the products: the batch names few, its categories hold many. */
const NAMED_SHARE = 0.05;

export const repricingSection = section({
  id: 'repricing',
  where: 'in-process',
  heading: `\nRepricing after a batch of orders (${ORDERS.toLocaleString('en-US')} orders naming ${NAMED_SHARE * 100}% of ${PRODUCTS.toLocaleString('en-US')} products in 8 categories, on top of the catalogue; counts per 1,000 records of that batch)`,
  targets: {},
  async measure({ stack }) {
    const local = await stack();
    const seller = await createWorkspaceWithKeys(`Bench repricing ${PRODUCTS}`);
    const size = { products: PRODUCTS, customers: 200, quotes: 0, orders: ORDERS };
    const catalogue = sampleCatalogue(size, { seed: PRODUCTS, prefix: `R${PRODUCTS}-` });
    await ingestBatch(local, seller.keys.connector, seller.workspaceId, { ...catalogue, quote: [], order: [] });
    const named = new Set(catalogue.product.slice(0, Math.ceil(PRODUCTS * NAMED_SHARE)).map((product) => product.sku));
    const order = catalogue.order.flatMap((record) => {
      const lines = record.lines.filter((line) => named.has(line.productSku));
      return lines.length > 0 ? [{ ...record, lines }] : [];
    });
    const run = await ingestBatch(
      local,
      seller.keys.connector,
      seller.workspaceId,
      { product: [], customer: [], quote: [], order },
      { indexes: true },
    );
    return { records: order.length, counts: run.counts };
  },
  lines: (counted) => jobCountLines(counted.counts, counted.records),
  record: (counted) => ({ repricing: { records: counted.records, ...perThousandRecords(counted.counts, counted.records) } }),
});
