// Console users in a real headless Chromium: a new user chooses their own password at the first sign-in, and an admin creates users (the one-time password shown once), changes roles, disables and deletes users (once confirmed) under Settings → Users; at desktop and phone widths.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleUserOf, createConsoleUser, listConsoleUsers, personOfUser } from '#edge/console/users.ts';
import { getWorkspaceApiKey, issueApiKey } from '#shared/api-keys/repository.ts';
import { newWorkspace } from '#test/integration/support.ts';
import { consoleUrl, launchChromium, newConsoleContext, screenshot, seriousAxeViolations, signIn, submit } from './support.ts';

const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** No serious axe finding and nothing wider than the screen at both widths, with a screenshot of each. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const [width, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    expect(await seriousAxeViolations(page), `${name} at ${width}`).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth'), `${name} at ${width}`).toBe(
      false,
    );
    await screenshot(page, `${name}-${width}`);
  }
  await page.setViewportSize(DESKTOP);
}

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
      expect(await submit(page, row().getByRole('button', { name: `Delete ${other}` }))).toBe(200);
      expect(await submit(page, page.getByRole('button', { name: 'Delete user', exact: true }))).toBe(303);
      await page.getByText(`Deleted ${other}.`).waitFor();
      expect(await row().count()).toBe(0);
    });
  });

  it('shows a new user’s one-time password once after the redirect; a reload shows it no more and makes no second user', async () => {
    const admin = { email: `maker.${randomUUID().slice(0, 8)}@example.com`, password: `chosen-${randomUUID()}` };
    await createConsoleUser({ workspaceId, roles: ['admin'], ...admin });
    const made = `made.${randomUUID().slice(0, 8)}@example.com`;
    await inContext(
      async (page) => {
        await signIn(page, admin.email, admin.password);
        await page.goto(consoleUrl('/console/settings/users'));
        await page.getByLabel('Email').fill(made);
        await page.getByRole('checkbox', { name: 'finance: reviews cost and adherence' }).check();
        expect(await submit(page, page.getByRole('button', { name: 'Create user' }))).toBe(303);
        const password = (await page.getByTestId('new-password').textContent()) ?? '';
        expect(password).toMatch(/^[0-9A-Za-z]{24}$/);
        expect(page.url()).toBe(consoleUrl('/console/settings/users'));
        await checkBothWidths(page, 'user-created-once');

        await page.reload();
        expect(await page.getByTestId('new-password').count()).toBe(0);
        expect(await page.content()).not.toContain(password);
        expect((await listConsoleUsers(workspaceId)).filter((user) => user.email === made)).toHaveLength(1);
      },
      { bypassCSP: true },
    );
  });

  it('deletes a user only once confirmed: the step names them and the keys they made, Cancel keeps them, and the keys go if ticked', async () => {
    const admin = { email: `deleter.${randomUUID().slice(0, 8)}@example.com`, password: `chosen-${randomUUID()}` };
    await createConsoleUser({ workspaceId, roles: ['admin'], ...admin });
    const leaving = await createConsoleUser({
      workspaceId,
      email: `leaving.${randomUUID().slice(0, 8)}@example.com`,
      roles: ['pricing'],
      password: `chosen-${randomUUID()}`,
    });
    const [record] = (await listConsoleUsers(workspaceId)).filter((user) => user.email === leaving.email);
    const made = await issueApiKey({
      workspaceId,
      name: 'Leaver’s export',
      family: 'pw_live',
      scopes: [],
      createdBy: personOfUser(consoleUserOf(record as NonNullable<typeof record>)),
    });
    const stillThere = async () => (await listConsoleUsers(workspaceId)).some((user) => user.email === leaving.email);
    await inContext(
      async (page) => {
        await signIn(page, admin.email, admin.password);
        await page.goto(consoleUrl('/console/settings/users'));
        const row = () => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: leaving.email }) });

        expect(await submit(page, row().getByRole('button', { name: `Delete ${leaving.email}` }))).toBe(200);
        const step = page.getByRole('region', { name: 'Delete this user?' });
        expect(await step.textContent()).toContain(`${leaving.email} (pricing) will no longer sign in`);
        expect(await step.textContent()).toContain(`“Leaver’s export” pw_live_…${made.key.slice(-4)} (${made.keyId})`);
        expect(await stillThere()).toBe(true);
        await checkBothWidths(page, 'user-delete-confirm');

        await step.getByRole('link', { name: 'Cancel' }).click();
        await row().waitFor();
        expect(await stillThere()).toBe(true);

        expect(await submit(page, row().getByRole('button', { name: `Delete ${leaving.email}` }))).toBe(200);
        await page.getByRole('checkbox', { name: 'Revoke the 1 key they made as well' }).check();
        expect(await submit(page, page.getByRole('button', { name: 'Delete user', exact: true }))).toBe(303);
        await page.getByText(`Deleted ${leaving.email}. Revoked the 1 key they made: “Leaver’s export” (${made.keyId}).`).waitFor();
        expect(await row().count()).toBe(0);
        expect(await stillThere()).toBe(false);
        expect((await getWorkspaceApiKey(workspaceId, made.keyId))?.revokedAt).toEqual(expect.any(String));
        await checkBothWidths(page, 'user-deleted');
      },
      { bypassCSP: true },
    );
  });
});
