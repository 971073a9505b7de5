// Errors beside their fields and the list on a phone, in a real headless Chromium: where a refused price and a refused key are said, where focus goes, and what a 390 px screen shows of the list.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain, LAMP } from '#test/integration/prices-support.ts';
import { newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { consoleUrl, launchChromium, newConsoleContext, screenshot, signIn, submit } from './support.ts';

/** A SKU long enough to break mid-token in a narrow cell, and the largest move, so that it heads the list. */
const VALVE: ProductRecord = {
  sku: 'VALVE-HOUSING-40MM-STAINLESS',
  name: 'Stainless valve housing, 40 mm, for the long-named catalogue line',
  category: 'Valves and fittings',
  costCents: 40_000,
  currentPriceCents: 45_000,
};
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let browser: Browser;
let workspace: TestWorkspace;
let context: BrowserContext;
let page: Page;

async function bothWidths(name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** The id of the element that has focus, as the browser says. */
function focusedId(): Promise<unknown> {
  return page.evaluate('document.activeElement ? document.activeElement.id : null');
}

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Console Defects');
  await drain(workspace, { product: [LAMP, VALVE] });
  const email = `defects.${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['admin', 'pricing'] });
  context = await newConsoleContext(browser);
  page = await context.newPage();
  await signIn(page, email, password);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
});

describe('errors beside their fields', { timeout: 120_000 }, () => {
  it('says a refused price under the price field, ties it to the field, and puts focus on the field', async () => {
    await page.goto(consoleUrl('/console/recommendations/LAMP'));
    await page.getByLabel(/Price to approve/).fill('30.00');
    expect(await submit(page, page.getByRole('button', { name: 'Approve price' }))).toBe(422);
    const field = page.getByLabel(/Price to approve/);
    const error = page.locator('#approve-error');
    expect(await error.textContent()).toMatch(/above the ceiling of 20\.00 USD/);
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect((await field.getAttribute('aria-describedby'))?.split(' ')).toContain('approve-error');
    expect(await focusedId()).toBe('approve-price');
    const fieldBox = await field.boundingBox();
    const errorBox = await error.boundingBox();
    // Right under the field, not somewhere else on the page.
    expect(errorBox && fieldBox && errorBox.y - (fieldBox.y + fieldBox.height)).toBeGreaterThanOrEqual(0);
    expect(errorBox && fieldBox && errorBox.y - (fieldBox.y + fieldBox.height)).toBeLessThan(40);
    await bothWidths('refused-price');
  });

  it('says a refused key inside the create form, beside its fields, not at the top of the page', async () => {
    await page.goto(consoleUrl('/console/settings/api-keys'));
    await page.getByLabel('Name').fill('Price sync');
    await page.getByLabel('Family').selectOption('svc_live');
    expect(await submit(page, page.getByRole('button', { name: 'Create key' }))).toBe(422);
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Create key' }) });
    const error = form.getByRole('alert');
    expect(await error.textContent()).toMatch(/needs at least one scope/);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(await form.locator('fieldset').first().getAttribute('aria-describedby')).toBe('create-key-error');
    // The form's first field, the key's name, has focus.
    expect(await focusedId()).toBe('key-name');
    const errorBox = await error.boundingBox();
    const familyBox = await page.getByLabel('Name').boundingBox();
    const tableBox = await page.locator('table').first().boundingBox();
    // Below the list of keys, and just above the form's first field.
    expect(errorBox && tableBox && errorBox.y).toBeGreaterThan((tableBox?.y ?? 0) + (tableBox?.height ?? 0));
    expect(errorBox && familyBox && familyBox.y - errorBox.y).toBeLessThan(150);
    await bothWidths('refused-key');
  });
});

describe('the list of recommendations on a phone', { timeout: 120_000 }, () => {
  it('keeps a row’s SKU, recommended price and change in view at 390×844, the SKU on one line', async () => {
    await page.setViewportSize(PHONE);
    try {
      await page.goto(consoleUrl('/console/recommendations'));
      const first = page.locator('table.recommendations tbody tr').first();
      expect(await first.isVisible()).toBe(true);
      // The long SKU's row, wherever the sort puts it: the narrowest case.
      const row = page.locator('table.recommendations tbody tr', { hasText: VALVE.sku });
      const cells = {
        sku: row.locator('th[scope="row"]'),
        recommended: row.locator('td[data-label="Recommended price"]'),
        change: row.locator('td[data-label="Change"]'),
      };
      expect(await cells.sku.textContent()).toContain(VALVE.sku);
      expect(await cells.recommended.textContent()).toMatch(/\d+\.\d{2} USD/);
      expect(await cells.change.textContent()).toMatch(/%/);
      for (const [name, cell] of Object.entries(cells)) {
        const box = await cell.boundingBox();
        expect(box, name).not.toBeNull();
        expect(box?.x ?? -1, name).toBeGreaterThanOrEqual(0);
        expect((box?.x ?? 0) + (box?.width ?? 0), name).toBeLessThanOrEqual(PHONE.width);
      }
      // Nothing to scroll sideways for, on the page or in the table's own region.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      expect(
        await page.evaluate(
          "(() => { const wrap = document.querySelector('.table-wrap'); return wrap.scrollWidth - wrap.clientWidth; })()",
        ),
      ).toBeLessThanOrEqual(0);
      // One line box: the SKU is not broken mid-token.
      expect(await page.evaluate(`document.querySelector('table.recommendations a[href$="/${VALVE.sku}"]').getClientRects().length`)).toBe(
        1,
      );
      await screenshot(page, 'recommendations-list-phone');
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });
});
