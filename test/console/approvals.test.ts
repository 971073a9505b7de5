// Approvals in a real headless Chromium: the confirmation step of a large move, a second approver, racing approvers, and the product page's history, at desktop and phone width.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { recentTasks } from '#shared/writebacks/listing.ts';
import { drain, LAMP } from '#test/integration/prices-support.ts';
import { newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { approve } from '#test/integration/writebacks-support.ts';
import { consoleUrl, csrfTokenOf, launchChromium, newConsoleContext, screenshot, signIn, submit } from './support.ts';

/** Listed at 610.56 with no ceiling: 6,105.60 is +900%. */
const PUMP: ProductRecord = { sku: 'PUMP', name: 'Pump', category: 'Pumps', costCents: 30_000, currentPriceCents: 61_056 };
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let browser: Browser;
let workspace: TestWorkspace;

async function pricingPerson(): Promise<{ email: string; password: string }> {
  const email = `pricing.${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['pricing'] });
  return { email, password };
}

async function signedIn(): Promise<{ context: BrowserContext; page: Page; email: string }> {
  const { email, password } = await pricingPerson();
  const context = await newConsoleContext(browser);
  const page = await context.newPage();
  await signIn(page, email, password);
  return { context, page, email };
}

/** Screenshots at both widths, the page whole, for a person to look at. */
async function bothWidths(page: Page, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

async function tasksAt(priceCents: number) {
  return (await recentTasks(workspace.workspaceId, workspace.connectorId)).filter((task) => task.priceCents === priceCents);
}

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Console Approver');
  await updateWorkspace(workspace.workspaceId, { pricing: { secondApprovalPct: 100 } });
  await drain(workspace, { product: [PUMP, LAMP] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('approving in the console', { timeout: 180_000 }, () => {
  let first: Awaited<ReturnType<typeof signedIn>>;
  let second: Awaited<ReturnType<typeof signedIn>>;

  beforeAll(async () => {
    first = await signedIn();
    second = await signedIn();
  });
  afterAll(async () => {
    await first?.context.close();
    await second?.context.close();
  });

  it('refuses a price past the ceiling inline, whatever the confirmation, and records nothing', async () => {
    const { page } = first;
    await page.goto(consoleUrl('/console/recommendations/LAMP'));
    await page.getByLabel(/Price to approve/).fill('30.00');
    expect(await submit(page, page.getByRole('button', { name: 'Approve price' }))).toBe(422);
    expect(await page.getByRole('alert').textContent()).toMatch(/above the ceiling of 20\.00 USD/);
    expect(await readLatestApproval(workspace.workspaceId, 'LAMP')).toBeUndefined();
  });

  it('asks to confirm a +900% price on a step of its own, showing both prices, the recommended one, the change and what the typed price is worth, and changes nothing until then', async () => {
    const { page } = first;
    await page.goto(consoleUrl('/console/recommendations/PUMP'));
    await page.getByLabel(/Price to approve/).fill('6105.60');
    expect(await submit(page, page.getByRole('button', { name: 'Approve price' }))).toBe(422);
    await page.getByRole('heading', { name: 'Confirm a large price change' }).waitFor();
    const terms = (await page.getByRole('term').allTextContents()).map((text) => text.trim());
    expect(terms).toEqual([
      'Current price',
      'Recommended price',
      'Price to approve',
      'Change',
      'Margin at this price',
      'Expected impact at this price',
    ]);
    const shown = (await page.getByRole('definition').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    expect(shown.slice(0, 4)).toEqual(['610.56 USD', expect.stringMatching(/^[\d,.]+ USD/), '6,105.60 USD', '+900.00%']);
    expect(shown[4]).toMatch(/^\d+\.\d%$/);
    expect(shown[5]).toMatch(/of margin per quote|^too thin to say: /);
    expect(await page.locator('form.approve input[name="_csrf"]').getAttribute('value')).toBe(await csrfTokenOf(page));
    expect(await readLatestApproval(workspace.workspaceId, 'PUMP')).toBeUndefined();
    await bothWidths(page, 'approval-confirmation');
  });

  it('confirmed, the approval waits for a second approver and publishes nothing', async () => {
    const { page } = first;
    expect(await submit(page, page.getByRole('button', { name: /Confirm and approve/ }))).toBe(303);
    await page.getByText(/needs a second approver/).waitFor();
    expect(await tasksAt(610_560)).toEqual([]);
    expect(await page.locator('table').filter({ hasText: 'waiting for a second approver' }).count()).toBe(1);
  });

  it("a second person's confirmed approval of the same price publishes it once, and the history names both", async () => {
    const { page, email } = second;
    await page.goto(consoleUrl('/console/recommendations/PUMP'));
    await page.getByLabel(/Price to approve/).fill('6105.60');
    expect(await submit(page, page.getByRole('button', { name: 'Approve price' }))).toBe(422);
    expect(await submit(page, page.getByRole('button', { name: /Confirm and approve/ }))).toBe(303);
    await page.getByText(/as the second approver: 1 pending write-back/).waitFor();
    expect(await tasksAt(610_560)).toHaveLength(1);
    const row = page.getByRole('region', { name: 'Approvals of PUMP' }).locator('tbody tr').first();
    const text = (await row.textContent()) ?? '';
    expect(text).toContain(first.email);
    expect(text).toContain(email);
    expect(text).toMatch(/confirmed \(past 25%\)/);
    expect(text).toMatch(/published/);
    expect(text).toMatch(/pending/);
    await bothWidths(page, 'approval-history');
  });

  it('of a console user and an API key seconding one waiting approval at once, exactly one publishes', async () => {
    const waiting = await approve(workspace.keys.pwLive, { sku: 'PUMP', price: 5000, confirm: true });
    expect(waiting.json.status, waiting.text).toBe('waiting');
    const { page } = second;
    await page.goto(consoleUrl('/console/recommendations/PUMP'));
    const token = await csrfTokenOf(page);
    const { issueApiKey } = await import('#shared/api-keys/repository.ts');
    const other = await issueApiKey({ workspaceId: workspace.workspaceId, family: 'pw_live', scopes: [] });
    const [posted, approved] = await Promise.all([
      page.request.post(consoleUrl('/console/recommendations/PUMP'), {
        form: { _csrf: token, _action: 'approve', price: '5000.00', confirm: 'yes' },
        maxRedirects: 0,
      }),
      approve(other.key, { sku: 'PUMP', price: 5000, confirm: true }),
    ]);
    expect(posted.status()).toBe(303);
    expect(approved.status, approved.text).toBe(200);
    expect(await tasksAt(500_000)).toHaveLength(1);
    const latest = await readLatestApproval(workspace.workspaceId, 'PUMP');
    // Whoever came second found the first's approval published, and its own waits in turn.
    expect(latest?.waiting).toMatchObject({ priceCents: 500_000 });
    expect(latest?.waiting?.approvalId).not.toBe(waiting.json.approval_id);
  });
});
