// A morning's approvals in one round, in a real headless Chromium: twenty good changes and one that a batch turns into a typo while the review step is open, with an unrelated batch committed meanwhile; one confirmation approves the twenty as shown and holds the typo back.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApprovalHistory } from '#shared/approvals/history.ts';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain } from '#test/integration/prices-support.ts';
import { newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { claim, claimedTasks } from '#test/integration/writebacks-support.ts';
import { consoleUrl, launchChromium, screenshot, seriousAxeViolations, signedInUser, submit } from './support.ts';

/** Twenty-one lamps, each raised by its floor from 15.00 to 16.00: a good change of +6.7% for every one. */
const LAMPS: ProductRecord[] = Array.from({ length: 21 }, (_, index) => ({
  sku: `LAMP-${String(index + 1).padStart(2, '0')}`,
  name: `Desk lamp, model ${index + 1}`,
  category: 'Lamps',
  costCents: 1000,
  currentPriceCents: 1500,
  floorCents: 1600,
}));
const TYPO_SKU = 'LAMP-21';
/** The ERP's typo: the last lamp's cost sent as 100.00 for 10.00. */
const TYPO: ProductRecord = { ...(LAMPS[20] as ProductRecord), costCents: 10_000 };
/** Products of other categories: the batch that brings them has nothing to do with the lamps. */
const OTHERS: ProductRecord[] = [
  { sku: 'KETTLE-1', name: 'Kettle', category: 'Kitchen', costCents: 1200, currentPriceCents: 1900 },
  { sku: 'TOASTER-1', name: 'Toaster', category: 'Kitchen', costCents: 1400, currentPriceCents: 2100 },
];
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspace: TestWorkspace;

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Morning Round Seller');
  await drain(workspace, { product: [...LAMPS, ...OTHERS] });
  ({ context, page } = await signedInUser(browser, workspace.workspaceId, ['pricing']));
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
});

async function expectAccessible(what: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  expect(violations.map((violation) => `${what}: ${violation.id} ${violation.help}`)).toEqual([]);
}

describe('a morning’s approvals in one round', { timeout: 300_000 }, () => {
  it('approves the twenty good changes as shown in one confirmation and holds back the one a batch made a typo meanwhile', async () => {
    await page.goto(consoleUrl('/console/recommendations?category=Lamps&limit=50'));
    await page.getByRole('link', { name: 'Select all shown' }).click();
    for (const lamp of LAMPS) expect(await page.getByRole('checkbox', { name: `Select ${lamp.sku}` }).isChecked(), lamp.sku).toBe(true);
    expect(await submit(page, page.getByRole('button', { name: 'Review selected for approval' }))).toBe(200);
    await page.getByRole('heading', { name: 'Confirm approving 21 products' }).waitFor();
    await screenshot(page, 'morning-round-review');
    await expectAccessible('review step');

    // While the review step is open: an unrelated batch, and one that brings the lamp's cost typo.
    await drain(workspace, { product: OTHERS.map((other) => ({ ...other, currentPriceCents: other.currentPriceCents + 1 })) });
    await drain(workspace, { product: [TYPO] });

    expect(await submit(page, page.getByRole('button', { name: 'Approve the ticked products' }))).toBe(200);
    await page.getByRole('heading', { name: 'Bulk approval: 20 of 21 approved' }).waitFor();
    // The typo is refused with its reason and stays ticked for another look; nothing of it was published.
    const results = page.getByRole('region', { name: 'Results of the bulk approval' });
    const held = results.getByRole('row').filter({ hasText: TYPO_SKU });
    expect(await held.textContent()).toMatch(/Not approved: .*(check|confirm|warning|moved)/i);
    expect(await page.getByRole('checkbox', { name: TYPO_SKU }).isChecked()).toBe(true);
    expect(await readLatestApproval(workspace.workspaceId, TYPO_SKU)).toBeUndefined();
    await screenshot(page, 'morning-round-results');
    await expectAccessible('results');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'morning-round-results-phone');
    expect(
      (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number,
    ).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1440, height: 900 });

    // Each of the twenty is recorded as approved as shown, not as a person's price over the recommendation.
    for (const lamp of LAMPS.slice(0, 20)) {
      const { entries } = await readApprovalHistory(workspace.workspaceId, lamp.sku, { limit: 5 });
      expect(
        entries.map((entry) => entry.approval.priceCents),
        lamp.sku,
      ).toEqual([1600]);
      expect(entries[0]?.approval.shown?.priceCents, lamp.sku).toBe(1600);
    }
    const tasks = claimedTasks(await claim(workspace.keys.connector, { limit: 50 }));
    expect(tasks.map((task) => task.productSku).sort()).toEqual(LAMPS.slice(0, 20).map((lamp) => lamp.sku));
    for (const task of tasks) expect(task.reasonSummary, String(task.productSku)).not.toMatch(/over the recommended/);

    await page.goto(consoleUrl('/console/recommendations/LAMP-01'));
    const history = page.getByRole('region', { name: 'Approvals of LAMP-01' });
    expect(await history.getByText(/as shown; recommended 16\.00 USD when approved/).count()).toBe(1);
    await screenshot(page, 'morning-round-history');
  });
});
