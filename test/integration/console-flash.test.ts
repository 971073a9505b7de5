// The console's notices through the local gateway: said once from the session after a form's redirect, never from the address; and a product page for an unknown SKU.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { ConsoleBrowser, csrfTokenOf } from './console-session.ts';
import { drain, LAMP } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

const PRODUCT = '/console/recommendations/LAMP';
/** Generous: the batch drains through the local queue on a busy machine. */
const SLOW = { timeout: 180_000 };

let workspace: TestWorkspace;

async function pricingPerson(): Promise<ConsoleBrowser> {
  const user = await createConsoleUser({
    workspaceId: workspace.workspaceId,
    email: `flash-${randomUUID()}@example.com`,
    roles: ['pricing'],
    password: `chosen-${randomUUID()}`,
  });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

/** The text of the page's notice banner, if it shows one. */
function noticeOf(page: string): string | undefined {
  return /<p class="notice" role="status">([^<]*)<\/p>/.exec(page)?.[1];
}

beforeAll(async () => {
  workspace = await newWorkspace('Console Notices');
  await drain(workspace, { product: [LAMP] });
}, 180_000);

describe('notices in the console', () => {
  it('never shows text from ?notice= in the address, on any page', SLOW, async () => {
    const browser = await pricingPerson();
    for (const path of ['/console', '/console/recommendations', PRODUCT, '/console/no-such-page']) {
      const page = await browser.get(`${path}?notice=${encodeURIComponent('Your account is suspended, call 555-0100')}`);
      expect(page.text).not.toContain('555-0100');
      expect(noticeOf(page.text)).toBeUndefined();
    }
    const signIn = await new ConsoleBrowser().get('/console/sign-in?notice=Call%20555-0100');
    expect(signIn.text).not.toContain('555-0100');
  });

  it("shows an approval's notice once after its redirect, with nothing in the address, and not on the next view", SLOW, async () => {
    const browser = await pricingPerson();
    const form = await browser.get(PRODUCT);
    const price = /id="approve-price"[^>]*value="([^"]+)"/s.exec(form.text)?.[1] ?? '';
    expect(price).toMatch(/^\d+\.\d{2}$/);
    const approved = await browser.submit(PRODUCT, { _action: 'approve', price, confirm: 'yes' });
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toBe(PRODUCT);
    const landed = await browser.get(PRODUCT);
    expect(noticeOf(landed.text)).toMatch(new RegExp(`Approved .*${price.replace('.', '\\.')}`));
    const next = await browser.get(PRODUCT);
    expect(noticeOf(next.text)).toBeUndefined();
  });

  it('says "You are signed out." after signing out, in words of its own', SLOW, async () => {
    const browser = await pricingPerson();
    const home = await browser.get('/console');
    const out = await browser.request('POST', '/console/sign-out', { _csrf: csrfTokenOf(home.text) });
    expect(out.status).toBe(303);
    const location = out.headers.get('location') ?? '';
    expect(location).not.toContain('notice');
    expect(noticeOf((await browser.get(location)).text)).toBe('You are signed out.');
  });
});

describe('the product page of an unknown SKU', () => {
  it('answers 404 with the page that says so and links to the list', SLOW, async () => {
    const browser = await pricingPerson();
    const page = await browser.get('/console/recommendations/NO-SUCH-SKU');
    expect(page.status).toBe(404);
    expect(page.text).toContain('The workspace knows no product with this SKU.');
    expect(page.text).toContain('href="/console/recommendations"');
  });
});
