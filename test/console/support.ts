// What the console's browser tests share: Chromium, a signed-in page, the accessibility check and the screenshots.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import type { ConsoleRole } from '#edge/console/page.ts';
import { createConsoleUser } from '#edge/console/users.ts';

/** Debian's Chromium unless CHROMIUM_PATH names another; never downloaded. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
}

export function consoleUrl(path = '/console'): string {
  return `${inject('stack').gatewayUrl}${path}`;
}

/** Git-ignored, beside the other browser tests' output. */
export const SCREENSHOT_DIR = join(projectRoot, 'test-results', 'console');

export async function newConsoleContext(browser: Browser, options: { bypassCSP?: boolean } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  // Generous: two busy cores run the browser, the gateway, DynamoDB Local and the drain at once.
  context.setDefaultTimeout(60_000);
  return context;
}

/** The passwords test users chose at their first sign-in, by email, with the one-time password they replaced. */
const chosenPasswords = new Map<string, { oneTime: string; chosen: string }>();

/**
 * Signs in through the form, as a person does, and waits to be inside the console. A user with a one-time password
 * chooses their own first, as the console makes them (unless `firstPassword` is `leave`); later sign-ins with the
 * one-time password use the chosen one, so that a test keeps the password it was handed.
 */
export async function signIn(
  page: Page,
  email: string,
  password: string,
  options: { firstPassword?: 'choose' | 'leave' } = {},
): Promise<void> {
  const known = chosenPasswords.get(email);
  const current = known?.oneTime === password ? known.chosen : password;
  await page.goto(consoleUrl('/console'));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(current);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  if (!new URL(page.url()).pathname.endsWith('/settings/password') || options.firstPassword === 'leave') return;
  const chosen = `own-${password}`;
  await page.getByLabel('One-time password').fill(current);
  await page.getByLabel('New password').fill(chosen);
  await page.getByRole('button', { name: 'Save password' }).click();
  await page.getByText('Your password is changed.').waitFor();
  chosenPasswords.set(email, { oneTime: password, chosen });
}

/** The CSRF token of the session, as every form of the page carries it (the sign-out form at least). */
export async function csrfTokenOf(page: Page): Promise<string> {
  const token = await page.locator('input[name="_csrf"]').first().getAttribute('value');
  expect(token).toBeTruthy();
  return token as string;
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: readonly string[] }>;
}

/** axe-core's serious and critical findings on the page as it is now; the page's context must bypass the CSP to inject it. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: join(projectRoot, 'node_modules', 'axe-core', 'axe.min.js') });
  // Browser-side code as text: the project's types are Node's, without the DOM's.
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as { violations: AxeViolation[] };
  return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

/** Reloads until the condition holds: the page is what a person watches, and reloading is how they watch it. */
export async function reloadUntil(page: Page, holds: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await holds()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeoutMs / 1000} s of reloading`);
    // A pause between polls, so that the reloads leave the two cores to the drain they wait for.
    await new Promise((resolve) => setTimeout(resolve, 250));
    await page.reload();
  }
}

/** Clicks a form's button and waits for the answer to its post and for the page it leads to; the post's status. */
export async function submit(page: Page, button: Locator): Promise<number> {
  const [response] = await Promise.all([
    page.waitForResponse((answer) => answer.request().method() === 'POST'),
    // A form post always navigates: to the page it redirects to, or to the answer it renders.
    page.waitForNavigation(),
    button.click(),
  ]);
  return response.status();
}

/**
 * A new console user of the workspace with these roles, signed in at desktop width in a context of its own (one that
 * bypasses the CSP, so that axe can be injected): what most browser tests start from.
 */
export async function signedInUser(
  browser: Browser,
  workspaceId: string,
  roles: readonly ConsoleRole[],
): Promise<{ readonly context: BrowserContext; readonly page: Page; readonly email: string }> {
  const email = `${roles.join('-')}.${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createConsoleUser({ workspaceId, email, roles: [...roles] });
  const context = await newConsoleContext(browser, { bypassCSP: true });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, email, password);
  return { context, page, email };
}
