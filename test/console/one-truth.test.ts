// Pages that agree with each other and with the API, in a real headless Chromium: a sandbox approval is never the live state, histories name keys and connectors, and a failed write-back is sent again from the history and leaves the landing page once sent again or approved again.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain } from '#test/integration/prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { ack, approve, claim, claimedTasks } from '#test/integration/writebacks-support.ts';
import { consoleUrl, launchChromium, screenshot, seriousAxeViolations, signedInUser, submit } from './support.ts';

const PRODUCTS: ProductRecord[] = [
  { sku: 'TRUTH-PUMP', name: 'Sandbox-approved pump', category: 'Pumps', costCents: 1000, currentPriceCents: 1500 },
  { sku: 'TRUTH-VALVE', name: 'Valve the ERP refused', category: 'Valves', costCents: 1000, currentPriceCents: 1500 },
];

let browser: Browser;
let context: BrowserContext;
let page: Page;
let workspace: TestWorkspace;

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('One Truth Seller');
  await drain(workspace, { product: PRODUCTS });
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

/** The list row of a SKU, as the recommendations list shows it. */
function listRow(sku: string) {
  return page.getByRole('row').filter({ has: page.getByRole('link', { name: sku, exact: true }) });
}

describe('pages that tell one truth', { timeout: 240_000 }, () => {
  it('shows a sandbox approval as a sandbox one in the history, and as the live state nowhere', async () => {
    const sandbox = await approve(workspace.keys.pwTest, { sku: 'TRUTH-PUMP', price: 15.3 });
    expect(sandbox.status).toBe(200);
    // The API's history says what the pages must: the one approval is a sandbox one.
    const history = await call('/v1/prices/TRUTH-PUMP/approvals', { key: workspace.keys.pwLive });
    expect(history.json.data.map((entry: { livemode: boolean }) => entry.livemode)).toEqual([false]);

    await page.goto(consoleUrl('/console/recommendations/TRUTH-PUMP'));
    const shown = page.getByRole('region', { name: 'Approvals of TRUTH-PUMP' });
    expect(await shown.getByText('a test key’s approval, never published; the live price is unchanged').count()).toBe(1);
    expect(await page.locator('#approve-standing').count()).toBe(0);
    expect(await page.getByLabel('Price to approve (USD)').inputValue()).not.toBe('15.30');
    await screenshot(page, 'one-truth-sandbox-product');
    await expectAccessible('product page after a sandbox approval');

    await page.goto(consoleUrl('/console/recommendations?category=Pumps'));
    expect(await listRow('TRUTH-PUMP').getByText('Not approved yet').count()).toBe(1);
  });

  it('names the key and the connector in the history, sends a failed write-back again from it, and drops a failure from the landing page once sent again or approved again', async () => {
    const first = await approve(workspace.keys.pwLive, { sku: 'TRUTH-VALVE', price: 15.3 });
    expect(first.status).toBe(200);
    const [task] = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
    expect(task?.productSku).toBe('TRUTH-VALVE');
    expect((await ack(workspace.keys.connector, [{ id: task?.id, ok: false, error: 'the ERP locked the price list' }])).status).toBe(200);

    await page.goto(consoleUrl('/console'));
    const failed = page.locator('section[aria-labelledby="panel-failed"]');
    expect(await failed.getByRole('link', { name: 'TRUTH-VALVE' }).count()).toBe(1);

    await page.goto(consoleUrl('/console/recommendations/TRUTH-VALVE'));
    const history = page.getByRole('region', { name: 'Approvals of TRUTH-VALVE' });
    expect(await history.getByText('API key “Reporting (live)”').count()).toBe(1);
    expect(await history.getByText('One Truth Seller ERP').count()).toBe(1);
    await screenshot(page, 'one-truth-named-history');
    await expectAccessible('product page with a failed write-back');

    // Sent again from the history: one new pending task at the same price, and the failure leaves the landing page.
    expect(await submit(page, history.getByRole('button', { name: 'Send again' }))).toBe(303);
    expect(await page.getByText(/Sent 15\.30 USD for TRUTH-VALVE to One Truth Seller ERP again/).count()).toBe(1);
    expect(await history.getByRole('button', { name: 'Send again' }).count()).toBe(0);
    await screenshot(page, 'one-truth-sent-again');
    await page.goto(consoleUrl('/console'));
    expect(await failed.getByRole('link', { name: 'TRUTH-VALVE' }).count()).toBe(0);
    const [again] = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
    expect(again).toMatchObject({ productSku: 'TRUTH-VALVE', priceCents: 1530, approvalId: task?.approvalId });
    expect((await ack(workspace.keys.connector, [{ id: again?.id, ok: false, error: 'still locked' }])).status).toBe(200);

    expect((await approve(workspace.keys.pwLive, { sku: 'TRUTH-VALVE', price: 15.4 })).status).toBe(200);
    await page.goto(consoleUrl('/console'));
    expect(await failed.getByRole('link', { name: 'TRUTH-VALVE' }).count()).toBe(0);
    expect(await failed.getByText('No failed write-back among the recent tasks.').count()).toBe(1);
    await screenshot(page, 'one-truth-landing-after-approval');
  });
});
