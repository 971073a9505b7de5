// The bench section of repricing: a batch of orders on top of a catalogue, and what its bands job does to reprice every product of the categories it moved.
import { jobCountLines, perThousandRecords } from '#lib/bench/drain-counts.ts';
import { ingestBatch } from '#lib/bench/ingest-batch.ts';
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
  heading: `\nRepricing after a batch of orders (drawn from ${ORDERS.toLocaleString('en-US')} orders, keeping those that name the first ${NAMED_SHARE * 100}% of ${PRODUCTS.toLocaleString('en-US')} products in 8 categories, on top of the catalogue)`,
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
    // A category that an order names is repriced whole: every product in it gets a new recommendation.
    const categoryOf = new Map(catalogue.product.map((product) => [product.sku, product.category]));
    const moved = new Set(order.flatMap((record) => record.lines.map((line) => categoryOf.get(line.productSku))));
    const repriced = catalogue.product.filter((product) => moved.has(product.category)).length;
    const run = await ingestBatch(
      local,
      seller.keys.connector,
      seller.workspaceId,
      { product: [], customer: [], quote: [], order },
      { indexes: true },
    );
    return { records: order.length, repriced, counts: run.counts };
  },
  lines: (counted) => {
    const job = counted.counts.calls.bands.total();
    const per = (value: number) => (value / counted.repriced).toFixed(1);
    return [
      `  ${counted.records.toLocaleString('en-US')} order records, ${counted.repriced.toLocaleString('en-US')} products repriced; counts per 1,000 records of that batch:`,
      ...jobCountLines(counted.counts, counted.records),
      `  bands job per product repriced: ${per(job.itemsWritten)} items and ${per(job.indexEntriesWritten)} index entries written, ${per(job.readUnits)} RRU, ${per(job.writeUnits)} WRU`,
    ];
  },
  record: (counted) => ({
    repricing: {
      records: counted.records,
      repriced: counted.repriced,
      bandsWriteUnitsPerProduct: counted.counts.calls.bands.total().writeUnits / counted.repriced,
      ...perThousandRecords(counted.counts, counted.records),
    },
  }),
});
