// `npm run admin -- backtest` run as an operator runs it, on workspaces whose history came in through the ingest API.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { type CatalogueSize, type SampleCatalogue, sampleCatalogue } from '#lib/local/sample-catalogue.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import { commitBatch, dumpCanonical, openBatchWith, stageCatalogue, waitForBands } from './ingest-support.ts';
import { newWorkspace } from './support.ts';

const run = promisify(execFile);

async function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/admin.ts', ...args, '--stack', inject('stackFile')], { cwd: projectRoot });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const NOW = new Date('2026-11-01T00:00:00Z');
const DAY_MS = 86_400_000;

/**
 * A simulated market: the sample catalogue's products and customers, and `quotes` one-line quotes over a year at
 * margins from 10% to 50%, each won with chance σ(3 − 10·m), so that cheaper quotes win more often.
 */
function simulatedMarket(quotes: number): SampleCatalogue {
  const catalogue = sampleCatalogue({ products: 10, customers: 10, quotes: 0, orders: 0 }, { seed: 12, now: NOW });
  const random = seededRandom(5);
  const quote = Array.from({ length: quotes }, (_, q) => {
    const product = catalogue.product[q % catalogue.product.length] as SampleCatalogue['product'][number];
    const margin = 0.1 + random() * 0.4;
    const createdAt = NOW.getTime() - Math.floor(((quotes - q) * 365) / quotes) * DAY_MS;
    return {
      externalId: `Q-${q}`,
      customerExternalId: (catalogue.customer[q % catalogue.customer.length] as SampleCatalogue['customer'][number]).externalId,
      outcome: random() < 1 / (1 + Math.exp(-(3 - 10 * margin))) ? ('won' as const) : ('lost' as const),
      currency: 'USD',
      createdAt: new Date(createdAt).toISOString(),
      decidedAt: new Date(createdAt + DAY_MS).toISOString(),
      lines: [
        {
          productSku: product.sku,
          quantity: 1 + Math.floor(random() * 20),
          costCents: product.costCents,
          quotedPriceCents: Math.round(product.costCents / (1 - margin)),
          pricingDecisionId: null,
        },
      ],
    };
  });
  return { ...catalogue, quote };
}

/** A workspace whose history is a sample catalogue of this size (or the catalogue given), ingested and drained, with its bands computed. */
async function workspaceWithHistory(size: CatalogueSize | SampleCatalogue): Promise<string> {
  const seller = await newWorkspace('Backtest Seller');
  const batchId = await openBatchWith(seller.keys.connector);
  const catalogue = 'product' in size ? size : sampleCatalogue(size, { seed: 12, now: NOW });
  await stageCatalogue(seller.keys.connector, batchId, catalogue);
  await commitBatch(seller.keys.connector, batchId);
  await waitForBands(seller.keys.connector, batchId, { timeoutMs: 30_000 });
  return seller.workspaceId;
}

/**
 * Every item of the workspace, derived ones included, but the bands lease: the bands job lets it go just after it marks
 * the batch's bands recomputed, which is what the ingest waited for.
 */
async function workspaceItems(workspaceId: string): Promise<Record<string, unknown>[]> {
  return (await dumpCanonical(workspaceId, { derived: true })).filter((item) => item.type !== 'bandsLease');
}

describe('the backtest command', () => {
  it('prints one JSON document that flags a short history as too thin, and writes nothing to the workspace', async () => {
    const workspaceId = await workspaceWithHistory({ products: 20, customers: 8, quotes: 60, orders: 40 });
    const before = await workspaceItems(workspaceId);

    const result = await admin('backtest', '--workspace', workspaceId, '--json');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      workspaceId,
      cutoff: { at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), holdoutDays: 60, latestClosedQuoteAt: expect.any(String) },
      history: { beforeCutoff: { closedQuotes: expect.any(Number) }, afterCutoff: { closedQuotes: expect.any(Number) } },
      winModel: { lines: expect.any(Number), logLoss: expect.any(Number), calibration: expect.any(Array) },
      margin: {
        currency: 'USD',
        expectedAtQuotedPrices: expect.any(Number),
        expectedAtServicePrices: expect.any(Number),
        verdict: 'too_thin',
      },
      evidence: { sufficient: false, thresholds: { minScoredQuotes: 30, minEachOutcome: 10 } },
      bootstrap: { replicates: 2000, level: 0.95 },
    });
    expect(report.evidence.reasons.join('\n')).toMatch(/a backtest needs 30/);
    expect(Date.parse(report.cutoff.latestClosedQuoteAt) - Date.parse(report.cutoff.at)).toBe(60 * 86_400_000);
    expect(await workspaceItems(workspaceId)).toEqual(before);
  });

  it('prints a readable report and judges a simulated market, with its interval, when the evidence suffices', async () => {
    const workspaceId = await workspaceWithHistory(simulatedMarket(900));
    const result = await admin('backtest', '--workspace', workspaceId, '--holdout-days', '90');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Backtest of Backtest Seller (${workspaceId})`);
    expect(result.stdout).toMatch(/Cut-off \d{4}-\d\d-\d\d: 90 days before the newest won or lost quote/);
    expect(result.stdout).toMatch(/Calibration by decile/);
    expect(result.stdout).toMatch(/Calibration over time, by month of the quote/);
    expect(result.stdout).toMatch(/^ {4}month +quotes +lines +predicted +won +gap$/m);
    expect(result.stdout).toMatch(
      /^ {2}Buyers in the last 3 months \(from \d{4}-\d\d-\d\d\) won .* than the model expects|^ {2}Buyers in the last 3 months \(from \d{4}-\d\d-\d\d\) won about as often/m,
    );
    expect(result.stdout).toMatch(/95% interval/);
    expect(result.stdout).toMatch(/Verdict: (the service's prices would have earned (MORE|LESS)|no clear difference)/);
    expect(result.stdout).not.toMatch(/too thin/i);

    const report = JSON.parse((await admin('backtest', '--workspace', workspaceId, '--holdout-days', '90', '--json')).stdout);
    expect(report.evidence).toMatchObject({ sufficient: true, reasons: [] });
    expect(report.winModel.auc).toBeGreaterThan(0.6);
    expect(report.winModel.logLoss).toBeLessThan(report.winModel.baseRateLogLoss);
    expect(report.margin.differenceInterval.low).toBeLessThanOrEqual(report.margin.differenceInterval.high);
    const { periods, recent } = report.winModel.calibrationOverTime;
    expect(periods.reduce((sum: number, period: { lines: number }) => sum + period.lines, 0)).toBe(report.winModel.lines);
    expect(recent).toMatchObject({ months: 3, verdict: expect.stringMatching(/^(as_expected|won_less|won_more)$/) });
  });

  it('exits 3 with a clear message and nothing on stdout for a workspace without history', async () => {
    const { workspaceId } = await newWorkspace('No History');
    const result = await admin('backtest', '--workspace', workspaceId, '--json');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(`nothing to backtest in workspace ${workspaceId}: the workspace has no quote or order history`);
    expect(result.stderr).not.toContain('Usage:');
  });

  it.each([
    [['backtest'], /--workspace is required/],
    [['backtest', '--workspace', 'ws_x', '--holdout-days', '0'], /--holdout-days must be a whole number/],
    [['backtest', '--workspace', 'ws_x', '--name', 'X'], /backtest takes no --name/],
  ])('exits 2 with the usage for the bad argument in %j', async (args, message) => {
    const result = await admin(...args, '--json');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run --silent admin');
  });

  it('exits 1 for a workspace that does not exist', async () => {
    const result = await admin('backtest', '--workspace', 'ws_doesnotexist');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ws_doesnotexist does not exist/);
  });
});
