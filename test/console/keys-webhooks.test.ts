// API keys and webhook endpoints in a real headless Chromium, at 1440×900 and 390×844: names and last use, a card per key on a phone, an endpoint created, refused beside its field, and test-sent; axe finds nothing serious.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { writeLastUse } from '#shared/api-keys/usage.ts';
import { listEndpoints } from '#shared/webhooks/endpoints.ts';
import { newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import { type Receiver, startReceiver } from '#test/integration/webhook-receiver.ts';
import { consoleUrl, launchChromium, newConsoleContext, reloadUntil, screenshot, seriousAxeViolations, signIn, submit } from './support.ts';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let workspace: TestWorkspace;
let context: BrowserContext;
let page: Page;
let receiver: Receiver;
const shots: string[] = [];

/** Whether the page is wider than the screen: what makes a phone scroll sideways. */
function scrollsSideways(): Promise<boolean> {
  return page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth') as Promise<boolean>;
}

/** The outermost element that reaches past the screen's right edge, by tag and class, or '' when none does. */
function widest(): Promise<string> {
  return page.evaluate(`(() => {
    const right = document.documentElement.clientWidth;
    const found = [];
    // A table's headings on a phone are clipped to nothing (read by screen readers only): they show nowhere.
    for (const element of document.querySelectorAll('body *:not(thead, thead *)')) {
      const box = element.getBoundingClientRect();
      if (box.right > right + 1) found.push(element.tagName + '.' + element.className + '#' + element.id + ' ' + Math.round(box.right));
    }
    return found.join(' > ');
  })()`) as Promise<string>;
}

/** The page at both widths: no serious or critical axe finding, nothing sideways on the phone, a screenshot of each. */
async function checkBothWidths(name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  expect(await seriousAxeViolations(page)).toEqual([]);
  shots.push(await screenshot(page, `${name}-desktop`));
  await page.setViewportSize(PHONE);
  expect(await seriousAxeViolations(page)).toEqual([]);
  shots.push(await screenshot(page, `${name}-phone`));
  const wide = await widest();
  expect(wide.length === 0 ? '' : wide, 'the elements wider than the phone').toBe('');
  expect(await scrollsSideways()).toBe(false);
  await page.setViewportSize(DESKTOP);
}

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Keys and Hooks');
  receiver = await startReceiver();
  const email = `keys.${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles: ['admin'] });
  context = await newConsoleContext(browser, { bypassCSP: true });
  page = await context.newPage();
  await page.setViewportSize(DESKTOP);
  await signIn(page, email, password);
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await context?.close();
  await browser?.close();
});

describe('the API keys page', { timeout: 120_000 }, () => {
  it('lists each key by name with its last four, scopes, created and last used, and as cards on a phone', async () => {
    const named = await issueApiKey({
      workspaceId: workspace.workspaceId,
      name: 'Storefront price widget, EU shop',
      family: 'svc_live',
      scopes: ['storefront'],
    });
    await writeLastUse(workspace.workspaceId, named.keyId, Date.now());
    await page.goto(consoleUrl('/console/settings/api-keys'));
    const row = page.locator(`tr[data-key-id="${named.keyId}"]`);
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('Storefront price widget, EU shop');
    expect(text).toContain(`svc_live_…${named.key.slice(-4)}`);
    expect(text).toContain('storefront');
    expect(text).not.toContain(named.key);
    expect(await row.locator('td[data-label="Last used"] time').count()).toBe(1);
    await checkBothWidths('api-keys');

    // On a phone the key's name and its last-used time are inside the screen, not off to the right.
    await page.setViewportSize(PHONE);
    for (const cell of [row.locator('th'), row.locator('td[data-label="Last used"]'), row.getByRole('button', { name: /Revoke/ })]) {
      const box = await cell.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    await page.setViewportSize(DESKTOP);
  });

  it('creates a named key, shown once, and names it in the revoke confirmation', async () => {
    await page.goto(consoleUrl('/console/settings/api-keys'));
    await page.getByLabel('Name').fill('Nightly ERP sync');
    await page.getByLabel('Family').selectOption('pw_live');
    expect(await submit(page, page.getByRole('button', { name: 'Create key' }))).toBe(200);
    expect(await page.getByTestId('new-key').textContent()).toMatch(/^pw_live_/);
    await page.goto(consoleUrl('/console/settings/api-keys'));
    expect(await submit(page, page.getByRole('button', { name: 'Revoke “Nightly ERP sync”' }))).toBe(200);
    await page.getByRole('region', { name: 'Revoke “Nightly ERP sync”?' }).waitFor();
    await checkBothWidths('api-key-revoke-named');
  });
});

describe('the webhook endpoints pages', { timeout: 120_000 }, () => {
  it('refuses an SSRF address beside the URL field, focused, and creates nothing', async () => {
    await page.goto(consoleUrl('/console/settings/webhooks'));
    await page.getByLabel('URL').fill('https://169.254.169.254/latest/meta-data/');
    await page.getByRole('checkbox', { name: 'price.approved' }).check();
    expect(await submit(page, page.getByRole('button', { name: 'Create endpoint' }))).toBe(422);
    const error = page.locator('#endpoint-url-error');
    expect(await error.textContent()).toMatch(/^Invalid url:/);
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('endpoint-url');
    const [fieldBox, errorBox] = [await page.getByLabel('URL').boundingBox(), await error.boundingBox()];
    expect(errorBox && fieldBox && errorBox.y - (fieldBox.y + fieldBox.height)).toBeGreaterThanOrEqual(0);
    expect(errorBox && fieldBox && errorBox.y - (fieldBox.y + fieldBox.height)).toBeLessThan(40);
    expect(await listEndpoints(workspace.workspaceId)).toEqual([]);
    await checkBothWidths('webhook-ssrf-refused');
  });

  it('creates an endpoint with its secret shown once, sends it a test event, and shows the attempt and payload', async () => {
    receiver.answerEvery(200);
    await page.goto(consoleUrl('/console/settings/webhooks'));
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('ERP price sync');
    await page.getByRole('checkbox', { name: 'price.approved' }).check();
    await page.getByRole('checkbox', { name: 'writeback.failed' }).check();
    expect(await submit(page, page.getByRole('button', { name: 'Create endpoint' }))).toBe(200);
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    receiver.verifyWith(secret);
    await checkBothWidths('webhook-created');

    await page.getByRole('link', { name: 'Open the endpoint to send it a test event' }).click();
    expect(await submit(page, page.getByRole('button', { name: 'Send a test event' }))).toBe(303);
    await reloadUntil(
      page,
      async () => (await page.getByText(/HTTP 200/).count()) > 0 && (await page.locator('table.deliveries tbody tr').count()) > 0,
      60_000,
      'the test attempt and its delivery',
    );
    expect(await page.locator('table.deliveries tbody tr').first().textContent()).toContain('webhook.test');
    expect(await page.locator('pre.payload').last().textContent()).toContain('"type": "webhook.test"');
    expect(receiver.requests.some((request) => request.event?.type === 'webhook.test' && !request.verifyError)).toBe(true);
    expect(await page.getByText('healthy').count()).toBeGreaterThan(0);
    await checkBothWidths('webhook-endpoint');
    console.info(`screenshots:\n${shots.join('\n')}`);
  });
});
