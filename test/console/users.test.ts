// Console users in a real headless Chromium: a new user chooses their own password at the first sign-in, and an admin changes roles, disables and deletes users under Settings → Users; at desktop and phone widths.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsoleUser } from '#edge/console/users.ts';
import { newWorkspace } from '#test/integration/support.ts';
import { consoleUrl, launchChromium, newConsoleContext, screenshot, seriousAxeViolations, signIn, submit } from './support.ts';

const PHONE = { width: 390, height: 844 };

let browser: Browser;
let workspaceId: string;

beforeAll(async () => {
  browser = await launchChromium();
  ({ workspaceId } = await newWorkspace('Users Seller'));
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

async function inContext<T>(run: (page: Page, context: BrowserContext) => Promise<T>, options: { bypassCSP?: boolean } = {}): Promise<T> {
  const context = await newConsoleContext(browser, options);
  try {
    return await run(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

describe('a new user’s first sign-in', { timeout: 300_000 }, () => {
  it('asks for a password of their own before anything else, and then lets them in', async () => {
    const email = `first.${randomUUID().slice(0, 8)}@example.com`;
    const { password } = await createConsoleUser({ workspaceId, email, roles: ['finance'] });
    await inContext(async (page) => {
      await signIn(page, email, password, { firstPassword: 'leave' });
      await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/console/settings/password');
      await screenshot(page, 'password-first-sign-in');
      await page.setViewportSize(PHONE);
      await screenshot(page, 'password-first-sign-in-phone');

      // Any other page leads back here.
      await page.goto(consoleUrl('/console/cost'));
      await page.getByRole('heading', { name: 'Choose your password' }).waitFor();

      await page.getByLabel('One-time password').fill(password);
      await page.getByLabel('New password').fill(password);
      expect(await submit(page, page.getByRole('button', { name: 'Save password' }))).toBe(422);
      await page.getByRole('alert').getByText('Choose a new password').waitFor();
      await screenshot(page, 'password-refused-phone');

      await page.getByLabel('One-time password').fill(password);
      await page.getByLabel('New password').fill('a password I chose myself');
      expect(await submit(page, page.getByRole('button', { name: 'Save password' }))).toBe(303);
      await page.getByText('Your password is changed.').waitFor();
      expect(new URL(page.url()).pathname).toBe('/console');
    });
    await inContext(async (page) => {
      await signIn(page, email, 'a password I chose myself');
      expect(new URL(page.url()).pathname).toBe('/console');
    });
  });

  it('has no serious or critical accessibility violation on the password page', async () => {
    const email = `axe.${randomUUID().slice(0, 8)}@example.com`;
    const { password } = await createConsoleUser({ workspaceId, email, roles: ['pricing'] });
    await inContext(
      async (page) => {
        await signIn(page, email, password, { firstPassword: 'leave' });
        expect(await seriousAxeViolations(page)).toEqual([]);
      },
      { bypassCSP: true },
    );
  });
});

describe('Settings → Users for an admin', { timeout: 300_000 }, () => {
  it('changes another user’s roles, disables and enables them, and deletes them; the admin’s own row has no forms', async () => {
    const admin = { email: `admin.${randomUUID().slice(0, 8)}@example.com`, password: `chosen-${randomUUID()}` };
    await createConsoleUser({ workspaceId, roles: ['admin'], ...admin });
    const other = `other.${randomUUID().slice(0, 8)}@example.com`;
    await createConsoleUser({ workspaceId, email: other, roles: ['finance'], password: `chosen-${randomUUID()}` });
    await inContext(async (page) => {
      await signIn(page, admin.email, admin.password);
      await page.goto(consoleUrl('/console/settings/users'));
      const mine = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: admin.email }) });
      expect(await mine.getByRole('button').count()).toBe(0);
      const row = () => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: other }) });
      await screenshot(page, 'users-admin');

      await row().getByRole('checkbox', { name: 'pricing' }).check();
      expect(await submit(page, row().getByRole('button', { name: `Save roles of ${other}` }))).toBe(303);
      await page.getByText(`Changed the roles of ${other}.`).waitFor();
      expect(await row().getByRole('cell').first().textContent()).toBe('pricing, finance');

      expect(await submit(page, row().getByRole('button', { name: `Disable ${other}` }))).toBe(303);
      await row().getByText('disabled').waitFor();
      await screenshot(page, 'users-disabled');
      await page.setViewportSize(PHONE);
      await screenshot(page, 'users-disabled-phone');

      expect(await submit(page, row().getByRole('button', { name: `Enable ${other}` }))).toBe(303);
      await row().getByText('active').waitFor();
      expect(await submit(page, row().getByRole('button', { name: `Delete ${other}` }))).toBe(303);
      await page.getByText(`Deleted ${other}.`).waitFor();
      expect(await row().count()).toBe(0);
    });
  });
});
