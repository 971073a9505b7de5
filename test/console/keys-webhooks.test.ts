// API keys and webhook endpoints in a real headless Chromium, at 1440×900 and 390×844: names and last use, a card per key on a phone, a new or rolled secret shown once after the redirect and gone on reload, an endpoint created, refused beside its field, test-sent, its secret revealed and rolled, its next retry shown, and deleted once confirmed; axe finds nothing serious.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { issueApiKey, listApiKeys } from '#shared/api-keys/repository.ts';
import { writeLastUse } from '#shared/api-keys/usage.ts';
import { recordAttempt } from '#shared/webhooks/attempt-log.ts';
import { getEndpoint, listEndpoints } from '#shared/webhooks/endpoints.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { newSigningSecret } from '#shared/webhooks/secrets.ts';
import { call, newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
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
    expect(await row.locator('td[data-label="Last used (UTC)"] time').count()).toBe(1);
    await checkBothWidths('api-keys');

    // On a phone the key's name and its last-used time are inside the screen, not off to the right.
    await page.setViewportSize(PHONE);
    for (const cell of [row.locator('th'), row.locator('td[data-label="Last used (UTC)"]'), row.getByRole('button', { name: /Revoke/ })]) {
      const box = await cell.boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    }
    await page.setViewportSize(DESKTOP);
  });

  it('creates a named key, shown once, and names it in the revoke confirmation', async () => {
    await page.goto(consoleUrl('/console/settings/api-keys'));
    await page.getByLabel('Name').fill('Nightly ERP sync');
    await page.getByLabel('Family').selectOption('pw_live');
    expect(await submit(page, page.getByRole('button', { name: 'Create key' }))).toBe(303);
    expect(await page.getByTestId('new-key').textContent()).toMatch(/^pw_live_/);
    await page.goto(consoleUrl('/console/settings/api-keys'));
    expect(await submit(page, page.getByRole('button', { name: 'Revoke “Nightly ERP sync”' }))).toBe(200);
    await page.getByRole('region', { name: 'Revoke “Nightly ERP sync”?' }).waitFor();
    await checkBothWidths('api-key-revoke-named');
  });

  it('shows a new key once after the redirect, never in the address; a reload shows it no more and makes no second key', async () => {
    const name = `Reload-safe ${randomUUID().slice(0, 8)}`;
    const named = async () => (await listApiKeys(workspace.workspaceId)).filter((key) => key.name === name);
    await page.goto(consoleUrl('/console/settings/api-keys'));
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Family').selectOption('pw_live');
    expect(await submit(page, page.getByRole('button', { name: 'Create key' }))).toBe(303);
    const key = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(key).toMatch(/^pw_live_/);
    expect(page.url()).toBe(consoleUrl('/console/settings/api-keys'));
    expect(await named()).toHaveLength(1);
    const rows = await page.locator('tr[data-key-id]').count();
    expect((await call('/v1/usage', { key })).status).toBe(200);
    await checkBothWidths('api-key-created-once');

    await page.reload();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await named()).toHaveLength(1);
    expect(await page.locator('tr[data-key-id]').count()).toBe(rows);
  });

  it('shows a rolled key once after the redirect, with when the old one stops; a reload makes no second successor', async () => {
    const old = await issueApiKey({ workspaceId: workspace.workspaceId, name: 'Rolled once', family: 'pw_live', scopes: [] });
    const successors = async () => (await listApiKeys(workspace.workspaceId)).filter((key) => key.rotatedFrom === old.keyId);
    await page.goto(consoleUrl('/console/settings/api-keys'));
    const row = page.locator(`tr[data-key-id="${old.keyId}"]`);
    await row.getByLabel('Old key works for').selectOption('1');
    expect(await submit(page, row.getByRole('button', { name: 'Rotate “Rolled once”' }))).toBe(303);
    const key = (await page.getByTestId('new-key').textContent()) ?? '';
    expect(key).toMatch(/^pw_live_/);
    expect(await page.getByRole('region', { name: /^New key “Rolled once”/ }).textContent()).toMatch(
      new RegExp(`replaces ${old.keyId}, which works until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\.`),
    );
    expect(await successors()).toHaveLength(1);
    await checkBothWidths('api-key-rolled-once');

    await page.reload();
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await successors()).toHaveLength(1);
    expect((await call('/v1/usage', { key })).status).toBe(200);
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
    expect(await submit(page, page.getByRole('button', { name: 'Create endpoint' }))).toBe(303);
    // The redirect leads to the new endpoint's own page, which shows its secret this once.
    const [created] = await listEndpoints(workspace.workspaceId);
    expect(page.url()).toBe(consoleUrl(`/console/settings/webhooks/${created?.endpointId}`));
    const secret = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    receiver.verifyWith(secret);
    await checkBothWidths('webhook-created');
    await page.reload();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

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
  });

  it('reveals the signing secret once, the one a test delivery’s signature verifies with, and never in the address', async () => {
    const [endpoint] = await listEndpoints(workspace.workspaceId);
    await page.goto(consoleUrl(`/console/settings/webhooks/${endpoint?.endpointId}`));
    expect(await submit(page, page.getByRole('button', { name: 'Reveal the secret' }))).toBe(303);
    const revealed = (await page.getByTestId('current-secret').textContent()) ?? '';
    expect(revealed).toMatch(/^whsec_/);
    expect(page.url()).not.toContain(revealed.slice('whsec_'.length, 20));
    const delivered = receiver.requests.find((request) => request.event?.type === 'webhook.test');
    expect(delivered).toBeDefined();
    expect(() => new Webhook(revealed).verify(delivered?.body ?? '', delivered?.headers ?? {})).not.toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(delivered?.body ?? '', delivered?.headers ?? {})).toThrow();
    await checkBothWidths('webhook-secret-revealed');

    await page.reload();
    expect(await page.getByTestId('current-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(revealed);
  });

  it('rolls the secret only once confirmed, shows the new one once, and signs with it beside the old for 24 hours', async () => {
    const [endpoint] = await listEndpoints(workspace.workspaceId);
    const path = `/console/settings/webhooks/${endpoint?.endpointId}`;
    await page.goto(consoleUrl(path));
    expect(await submit(page, page.getByRole('button', { name: 'Roll the secret', exact: true }))).toBe(200);
    const confirmation = page.getByRole('region', { name: /^Roll the signing secret of / });
    expect(await confirmation.textContent()).toMatch(/keeps signing beside it for\s+24 hours/);
    expect((await getEndpoint(workspace.workspaceId, endpoint?.endpointId ?? ''))?.secret).toBe(endpoint?.secret);
    await checkBothWidths('webhook-roll-confirm');
    await confirmation.getByRole('link', { name: 'Keep the current secret' }).click();
    expect((await getEndpoint(workspace.workspaceId, endpoint?.endpointId ?? ''))?.secret).toBe(endpoint?.secret);

    expect(await submit(page, page.getByRole('button', { name: 'Roll the secret', exact: true }))).toBe(200);
    expect(await submit(page, page.getByRole('button', { name: 'Yes, roll the secret' }))).toBe(303);
    const rolled = (await page.getByTestId('new-secret').textContent()) ?? '';
    expect(rolled).toMatch(/^whsec_/);
    expect(await page.getByRole('region', { name: 'New signing secret' }).textContent()).toMatch(
      /The previous secret signs beside it until \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    expect(await page.getByText(/The secret it replaced signs beside it until/).count()).toBe(1);
    await checkBothWidths('webhook-secret-rolled');
    await page.reload();
    expect(await page.getByTestId('new-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(rolled);

    const before = receiver.requests.length;
    receiver.verifyWith(rolled);
    expect(await submit(page, page.getByRole('button', { name: 'Send a test event' }))).toBe(303);
    await receiver.waitFor((requests) => requests.slice(before).some((request) => request.event?.type === 'webhook.test'), 60_000);
    const signed = receiver.requests.slice(before).find((request) => request.event?.type === 'webhook.test');
    expect(signed?.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(rolled).verify(signed?.body ?? '', signed?.headers ?? {})).not.toThrow();
  });

  it('shows a pending delivery’s next retry time in UTC', async () => {
    const [endpoint] = await listEndpoints(workspace.workspaceId);
    const endpointId = endpoint?.endpointId ?? '';
    const failedAt = new Date();
    const nextAttemptAt = new Date(failedAt.getTime() + 2 * 3_600_000).toISOString();
    const event = newEvent('webhook.test', workspace.workspaceId, { endpointId, requestedAt: failedAt.toISOString() }, failedAt);
    const attempt = { eventId: event.id, endpointId, seq: 4, attemptedAt: failedAt.toISOString(), status: 503, latencyMs: 40 };
    const summary = {
      eventId: event.id,
      eventType: event.type,
      eventTimestamp: event.timestamp,
      endpointId,
      status: 'pending' as const,
      attempts: 4,
      lastAttemptAt: attempt.attemptedAt,
      lastStatus: 503,
      nextAttemptAt,
    };
    expect(await recordAttempt(event, attempt, summary, failedAt.getTime())).toBe(true);
    await page.goto(consoleUrl(`/console/settings/webhooks/${endpointId}`));
    const row = page.getByRole('row').filter({ hasText: event.id });
    expect(await row.locator('td[data-label="Next attempt"]').textContent()).toBe(`${nextAttemptAt.slice(0, 19).replace('T', ' ')} UTC`);
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe('pending');
    await checkBothWidths('webhook-next-attempt');
  });

  it('deletes the endpoint only once confirmed, and says so on the list', async () => {
    const [endpoint] = await listEndpoints(workspace.workspaceId);
    await page.goto(consoleUrl(`/console/settings/webhooks/${endpoint?.endpointId}`));
    expect(await submit(page, page.getByRole('button', { name: 'Delete the endpoint', exact: true }))).toBe(200);
    await page.getByRole('region', { name: `Delete the endpoint ${endpoint?.url}?` }).waitFor();
    expect(await listEndpoints(workspace.workspaceId)).toHaveLength(1);
    await checkBothWidths('webhook-delete-confirm');

    expect(await submit(page, page.getByRole('button', { name: 'Yes, delete the endpoint' }))).toBe(303);
    expect(page.url()).toBe(consoleUrl('/console/settings/webhooks'));
    await page.getByText(`Deleted the endpoint ${endpoint?.endpointId}: nothing more is sent to it.`).waitFor();
    expect(await listEndpoints(workspace.workspaceId)).toEqual([]);
    await checkBothWidths('webhook-deleted');
    console.info(`screenshots:\n${shots.join('\n')}`);
  });
});
