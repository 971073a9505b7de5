// Data warnings in a real headless Chromium, at desktop and phone width: a product whose cost a batch multiplied by 10 says "check the data", is not in the landing page's gains nor in a "select all", and its approval asks to confirm the warning.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { findRecommendation, storeRecommendations } from '#shared/recommendations/repository.ts';
import type { Impact } from '#shared/recommendations/schema.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { drain } from '#test/integration/prices-support.ts';
import { newWorkspace } from '#test/integration/support.ts';
import { consoleUrl, launchChromium, newConsoleContext, screenshot, seriousAxeViolations, signIn, submit } from './support.ts';

/** Three valves in line; a later batch brings VALVE-1's cost as 100.00 for 10.00. */
const VALVES: ProductRecord[] = [
  { sku: 'VALVE-1', name: 'Ball valve', category: 'Valves', costCents: 1000, currentPriceCents: 1500 },
  { sku: 'VALVE-2', name: 'Gate valve', category: 'Valves', costCents: 1000, currentPriceCents: 1500 },
  { sku: 'VALVE-3', name: 'Check valve', category: 'Valves', costCents: 1000, currentPriceCents: 1500 },
];
const TYPO: ProductRecord = { ...(VALVES[0] as ProductRecord), costCents: 10_000 };

/** What the win model would say per quote: the typo's recommendation looks like the largest gain of all. */
const IMPACTS: Readonly<Record<string, number>> = { 'VALVE-1': 4_200, 'VALVE-2': 120, 'VALVE-3': 60 };

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1440, height: 900 } },
  { name: 'phone', viewport: { width: 390, height: 844 } },
] as const;

function estimated(expectedMarginChangeCents: number): Impact {
  const side = { priceCents: 1500, margin: 0.33, winProbability: 0.4, expectedRevenueCents: 600, expectedMarginCents: 200 };
  return {
    status: 'estimated',
    quantity: 2,
    current: side,
    recommended: side,
    expectedMarginChangeCents,
    expectedRevenueChangeCents: 0,
    evidence: { closedQuotes: 240, segments: [{ segment: 'trade', share: 1 }] },
  };
}

/** The drained recommendations with the impacts above, as the bands job stores them where quotes are enough. */
async function withImpacts(workspaceId: string): Promise<void> {
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error('no workspace');
  for (const [sku, cents] of Object.entries(IMPACTS)) {
    const recommendation = await findRecommendation(workspace, sku, Date.now(), true);
    if (recommendation?.status !== 'priced') throw new Error(`${sku} is not priced`);
    await storeRecommendations(workspaceId, [{ ...recommendation, impact: estimated(cents) }]);
  }
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function expectAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  expect(violations.map((violation) => `${what}: ${violation.id} ${violation.help}`)).toEqual([]);
}

async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('a product held by data warnings in the browser', { timeout: 300_000 }, () => {
  for (const { name, viewport } of WIDTHS) {
    it(`says "check the data", stays out of the gains and a select-all, and asks to confirm the warning (${name})`, async () => {
      const workspace = await newWorkspace(`Data Warnings Browser Seller ${name}`);
      await drain(workspace, { product: VALVES });
      await drain(workspace, { product: [TYPO] });
      await withImpacts(workspace.workspaceId);
      const email = `warnings.${randomUUID().slice(0, 8)}@example.com`;
      const { password } = await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['pricing'] });
      const context = await newConsoleContext(browser, { bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.setViewportSize(viewport);
        await signIn(page, email, password);

        await page.goto(consoleUrl('/console'));
        const gains = page.locator('section[aria-labelledby="panel-impact"]');
        expect(await gains.getByRole('link', { name: 'VALVE-2' }).count()).toBe(1);
        expect(await gains.getByRole('link', { name: 'VALVE-1' }).count()).toBe(0);
        await screenshot(page, `data-warnings-landing-${name}`);
        await expectAccessible(page, 'landing');
        if (name === 'phone') await expectNoSidewaysScroll(page);

        await page.goto(consoleUrl('/console/recommendations?category=Valves&sort=impact-desc'));
        await page.getByRole('link', { name: 'Select all shown' }).click();
        const held = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'VALVE-1', exact: true }) });
        expect(await held.getByText('check the data').count()).toBe(1);
        expect(await page.getByRole('checkbox', { name: 'Select VALVE-1' }).count()).toBe(0);
        for (const sku of ['VALVE-2', 'VALVE-3'])
          expect(await page.getByRole('checkbox', { name: `Select ${sku}` }).isChecked()).toBe(true);
        // Ranked below every product with an impact to rank, whatever its own estimate says.
        const order = await page.locator('table.recommendations tbody th[scope="row"] a').allTextContents();
        expect(order).toEqual(['VALVE-2', 'VALVE-3', 'VALVE-1']);
        await screenshot(page, `data-warnings-list-${name}`);
        await expectAccessible(page, 'list');
        if (name === 'phone') await expectNoSidewaysScroll(page);

        await held.getByRole('link', { name: 'VALVE-1', exact: true }).click();
        await page.getByRole('heading', { name: 'Check the data' }).waitFor();
        expect(await page.getByText('cost 100.00 USD is 10 times the cost it was in line at, 10.00 USD').count()).toBe(1);
        await screenshot(page, `data-warnings-product-${name}`);
        await expectAccessible(page, 'product');
        if (name === 'phone') await expectNoSidewaysScroll(page);

        expect(await submit(page, page.getByRole('button', { name: 'Approve price' }))).toBe(422);
        await page.getByRole('heading', { name: /Confirm a/ }).waitFor();
        const named = page.locator('.data-warnings');
        expect(await named.getByText('cost_jump').count()).toBe(1);
        expect(await named.getByText(/cost 100\.00 USD is 10 times/).count()).toBe(1);
        expect(await readLatestApproval(workspace.workspaceId, 'VALVE-1')).toBeUndefined();
        await screenshot(page, `data-warnings-confirm-${name}`);
        await expectAccessible(page, 'confirmation');
        if (name === 'phone') await expectNoSidewaysScroll(page);

        expect(await submit(page, page.getByRole('button', { name: /Confirm and approve/ }))).toBe(303);
        expect(await readLatestApproval(workspace.workspaceId, 'VALVE-1')).toBeDefined();
      } finally {
        await context.close();
      }
    });
  }
});
