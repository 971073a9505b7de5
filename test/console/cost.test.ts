// The cost page in a real headless Chromium, as finance reads it at 1440×900 and 390×844: routes by name with their ids, the total, what is not included, and the range as CSV; axe finds nothing serious.
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapacityLedger } from '#platform/meter.ts';
import { dayOf } from '#shared/cost/counts.ts';
import { chargeWork, flushCosts } from '#shared/cost/ledger.ts';
import { COST_NOT_INCLUDED } from '#shared/cost/report.ts';
import { newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { consoleUrl, launchChromium, screenshot, seriousAxeViolations, signedInUser } from './support.ts';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let workspace: TestWorkspace;
let context: BrowserContext;
let page: Page;

/** The ledger keys charged, and how many requests each: an API route, the drain's two jobs, and a route since removed. */
const SEEDED = { priceLines: 40, drain: 3, bands: 1, priceQuote: 2 } as const;

/** Charges the workspace as its requests and jobs would, through the ledger's own write: no page can tell the difference. */
async function seedLedger(workspaceId: string): Promise<void> {
  for (const [route, requests] of Object.entries(SEEDED)) {
    for (let i = 0; i < requests; i++) {
      const capacity = new CapacityLedger();
      capacity.readUnits = 55;
      capacity.writeUnits = 8;
      chargeWork({ workspaceId, route, nowMs: Date.now(), status: 200, capacity, durationMs: 120, apiRequests: 1, memoryMb: 1024 });
    }
  }
  await flushCosts();
}

/** Whether the page is wider than the screen: what makes a phone scroll sideways. */
function scrollsSideways(): Promise<boolean> {
  return page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth') as Promise<boolean>;
}

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Cost Reader');
  await seedLedger(workspace.workspaceId);
  ({ context, page } = await signedInUser(browser, workspace.workspaceId, ['finance']));
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
});

describe('the cost page', { timeout: 120_000 }, () => {
  it('names each route by its method and path or in words, its id under it, and a removed route by its key', async () => {
    await page.goto(consoleUrl('/console/cost'));
    const table = page.getByRole('region', { name: 'Cost per route and worker' });
    const prices = table.getByRole('row', { name: /POST \/api\/v1\/prices/ });
    expect(await prices.getByRole('rowheader').innerText()).toBe('POST /api/v1/prices\npriceLines');
    expect(await prices.getByRole('cell').first().innerText()).toBe(String(SEEDED.priceLines));
    expect(await table.getByRole('rowheader', { name: /^Drain worker/ }).innerText()).toBe('Drain worker\ndrain');
    expect(await table.getByRole('rowheader', { name: /^Bands job/ }).innerText()).toBe('Bands job\nbands');
    expect(await table.getByRole('rowheader', { name: 'priceQuote', exact: true }).count()).toBe(1);
    // The sign-in and this page's first view were charged too, under the console's own routes.
    expect(await table.getByRole('rowheader', { name: /^Console: GET \/console/ }).count()).toBeGreaterThan(0);
  });

  it('ends the table with the total row, and says under the totals what the report leaves out', async () => {
    await page.goto(consoleUrl('/console/cost'));
    const total = page.locator('tfoot tr');
    expect(await total.getByRole('rowheader').innerText()).toBe('Total');
    const seeded = Object.values(SEEDED).reduce((sum, requests) => sum + requests, 0);
    expect(Number(await total.getByRole('cell').first().innerText())).toBeGreaterThanOrEqual(seeded);
    await page.getByText(COST_NOT_INCLUDED, { exact: true }).waitFor();
    expect(await page.locator('dl.facts ~ p.hint').allInnerTexts()).toContain(COST_NOT_INCLUDED);
  });

  it('downloads the range per route as the CLI’s CSV: its header, a line per key, the total', async () => {
    await page.goto(consoleUrl('/console/cost'));
    const to = dayOf(Date.now());
    const from = dayOf(Date.now() - 29 * 86_400_000);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV per route' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`cost-${from}-to-${to}-by-route.csv`);
    const lines = readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines[0]).toMatch(/^route,requests,status_2xx,.*,total_usd,cost_per_request_usd,cost_per_million_priced_lines_usd$/);
    for (const [route, requests] of Object.entries(SEEDED)) expect(lines).toContainEqual(expect.stringMatching(`^${route},${requests},`));
    expect(lines.at(-1)).toMatch(/^total,\d+,/);
    expect(lines.every((line) => line.split(',').length === lines[0]?.split(',').length)).toBe(true);
  });

  it('serves the CSV per day with the console’s policy, to a session only, and explains a format it does not offer', async () => {
    const href = await page.getByRole('link', { name: 'Download CSV per day' }).getAttribute('href');
    expect(href).toMatch(/^\/console\/cost\?from=\d{4}-\d\d-\d\d&to=\d{4}-\d\d-\d\d&format=csv&by=day$/);
    const answer = await page.request.get(consoleUrl(href ?? ''), { maxRedirects: 0 });
    expect(answer.status()).toBe(200);
    expect(answer.headers()).toMatchObject({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': expect.stringMatching(/^attachment; filename="cost-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d-by-day\.csv"$/),
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    expect(answer.headers()['content-security-policy']).toMatch(/^default-src 'none'/);
    const text = await answer.text();
    expect(text).toMatch(/^day,requests,/);
    expect(text).toContain(`\n${dayOf(Date.now())},`);

    const stranger = await browser.newContext();
    try {
      const signedOut = await stranger.request.get(consoleUrl(href ?? ''), { maxRedirects: 0 });
      expect(signedOut.status()).toBe(303);
      expect(signedOut.headers().location).toMatch(/^\/console\/sign-in\?next=/);
    } finally {
      await stranger.close();
    }

    const refused = await page.goto(consoleUrl('/console/cost?format=xlsx'));
    expect(refused?.headers()['content-type']).toMatch(/^text\/html/);
    await page.getByRole('alert').getByText('format is csv; "xlsx" is not.').waitFor();
  });

  it('reads at desktop and phone width with no serious axe finding, the phone scrolling only its table', async () => {
    await page.goto(consoleUrl('/console/cost'));
    const shots: string[] = [];
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      expect(await seriousAxeViolations(page), `at ${width} width`).toEqual([]);
      shots.push(await screenshot(page, `cost-${width}`));
    }
    expect(await scrollsSideways()).toBe(false);
    const region = await page.getByRole('region', { name: 'Cost per route and worker' }).boundingBox();
    expect(region && region.x + region.width).toBeLessThanOrEqual(PHONE.width);
    const link = await page.getByRole('link', { name: 'Download CSV per day' }).boundingBox();
    expect(link && link.x + link.width).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);
    expect(shots).toHaveLength(2);
  });
});
