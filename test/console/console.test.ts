// The console in a real headless Chromium, as the people it serves use it: sign in, keys, approvals, batches, cost, sign out; roles, CSRF and workspaces kept apart; every page accessible.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findApiKey, hashApiKey } from '#shared/api-keys/repository.ts';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { recentTasks } from '#shared/writebacks/listing.ts';
import { commitBatch, openBatchWith, stageCatalogue } from '#test/integration/ingest-support.ts';
import { drain, pricingHistory } from '#test/integration/prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from '#test/integration/support.ts';
import {
  consoleUrl,
  csrfTokenOf,
  launchChromium,
  newConsoleContext,
  reloadUntil,
  screenshot,
  seriousAxeViolations,
  signIn,
  submit,
} from './support.ts';

/** A product whose name would run script if any page failed to escape it. */
const HOSTILE: ProductRecord = {
  sku: 'HOSTILE-1',
  name: '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>',
  category: 'Fasteners',
  costCents: 300,
  currentPriceCents: 450,
};

interface Person {
  readonly email: string;
  readonly password: string;
}

async function person(workspaceId: string, roles: Array<'admin' | 'pricing' | 'finance'>): Promise<Person> {
  const email = `${roles.join('.')}.${randomUUID().slice(0, 8)}@example.com`;
  const { password } = await createConsoleUser({ workspaceId, email, roles });
  return { email, password };
}

let browser: Browser;
let workspace: TestWorkspace;
let manager: Person;

beforeAll(async () => {
  browser = await launchChromium();
  workspace = await newWorkspace('Console Seller');
  await drain(workspace, pricingHistory());
  manager = await person(workspace.workspaceId, ['admin', 'pricing', 'finance']);
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("a pricing manager's day in the console", { timeout: 120_000 }, () => {
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    context = await newConsoleContext(browser);
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  afterAll(async () => {
    await context?.close();
  });

  it('signs in with an email and a password', async () => {
    await signIn(page, manager.email, manager.password);
    await page.getByText(manager.email, { exact: true }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Recommendations' }).count()).toBe(1);
  });

  it('lists every product with its recommended price, and filters, searches and sorts them without script', async () => {
    const response = await page.goto(consoleUrl('/console/recommendations'));
    expect(response?.status()).toBe(200);
    const rows = page.locator('table.data tbody tr');
    expect(await rows.count()).toBe(5);
    expect(await page.locator('table.data tbody').textContent()).toContain('14.50 USD');

    await page.getByLabel('Category').selectOption('Adhesives');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/category=Adhesives/);
    expect(await rows.allTextContents()).toHaveLength(1);
    expect(await rows.first().textContent()).toContain('NEW');

    await page.goto(consoleUrl('/console/recommendations'));
    await page.getByLabel('Search SKU or name').fill('hex');
    await page.getByLabel('Sort by').selectOption('change-asc');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=hex/);
    const skus = await page.locator('table.data tbody th[scope="row"]').allTextContents();
    expect(skus.sort()).toEqual(['BOLT', 'NUT']);
  });

  it("shows a product's rationale, drivers, guardrails and realised margins, and refuses a price below the floor inline", async () => {
    await page.goto(consoleUrl('/console/recommendations/BOLT'));
    await page.getByRole('heading', { name: 'Why this price' }).waitFor();
    await page.getByRole('heading', { name: 'Guardrails' }).waitFor();
    const chart = page.getByRole('img', { name: /Realised margin of BOLT by month/ });
    expect(await chart.count()).toBe(1);
    expect(await page.locator('figure.chart table tbody tr').count()).toBeGreaterThan(0);

    await page.getByLabel(/Price to approve/).fill('0.01');
    const refused = await submit(page, page.getByRole('button', { name: 'Approve price' }));
    expect(refused).toBe(422);
    expect(await page.getByRole('alert').textContent()).toMatch(/below the floor/);
    expect(await readLatestApproval(workspace.workspaceId, 'BOLT')).toBeUndefined();
  });

  it('approves the recommended price, and sees it as a pending write-back', async () => {
    await page.goto(consoleUrl('/console/recommendations/BOLT'));
    await page.getByRole('button', { name: 'Approve price' }).click();
    await page.getByText(/Approved .* for BOLT: 1 pending write-back/).waitFor();

    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Write-backs' }).click();
    const [task] = await recentTasks(workspace.workspaceId, workspace.connectorId);
    expect(task).toMatchObject({ productSku: 'BOLT', status: 'pending' });
    const row = page.locator(`tr[data-task-id="${task?.taskId}"]`);
    expect(await row.textContent()).toMatch(/BOLT[\s\S]*pending/);
  });

  it('creates a key under Settings → API keys, and the API takes it; revokes it only once confirmed, and the API refuses it', async () => {
    await page.goto(consoleUrl('/console/settings/api-keys'));
    await page.getByLabel('Name').fill('Reporting');
    await page.getByLabel('Family').selectOption('pw_live');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^pw_live_/);

    const accepted = await call('/v1/prices/BOLT', { key });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.sku).toBe('BOLT');

    const record = await findApiKey(hashApiKey(key));
    await page.goto(consoleUrl('/console/settings/api-keys'));
    // One click asks; it revokes nothing.
    expect(await submit(page, page.getByRole('button', { name: 'Revoke “Reporting”' }))).toBe(200);
    const confirmation = page.getByRole('region', { name: 'Revoke “Reporting”?' });
    await confirmation.waitFor();
    expect(await confirmation.textContent()).toContain(`pw_live_…${key.slice(-4)} (${record?.keyId})`);
    expect((await findApiKey(hashApiKey(key)))?.revokedAt).toBeUndefined();
    expect((await call('/v1/prices/BOLT', { key })).status).toBe(200);
    await screenshot(page, 'api-key-revoke-confirm-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'api-key-revoke-confirm-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    // The confirmation, with the session's token, revokes.
    expect(await submit(page, confirmation.getByRole('button', { name: 'Yes, revoke “Reporting”' }))).toBe(303);
    expect((await findApiKey(hashApiKey(key)))?.revokedAt).toBeTruthy();
    const refused = await call('/v1/prices/BOLT', { key });
    expect(refused.status, refused.text).toBe(401);
  });

  it('commits a batch through the API with a connector key, and watches it drain on the batches page', async () => {
    const batchId = await openBatchWith(workspace.keys.connector);
    await stageCatalogue(workspace.keys.connector, batchId, {
      product: Array.from({ length: 30 }, (_, i) => ({
        sku: `CLIP-${i}`,
        name: `Spring clip ${i}`,
        category: 'Fasteners',
        costCents: 100 + i,
        currentPriceCents: 160 + i,
      })),
      customer: [],
      quote: [],
      order: [],
    });
    await commitBatch(workspace.keys.connector, batchId);

    await page.goto(consoleUrl('/console/batches'));
    const row = page.locator(`tr[data-batch-id="${batchId}"]`);
    const status = row.locator('.status');
    await reloadUntil(page, async () => (await status.textContent()) === 'drained', 90_000, `batch ${batchId} drained`);
    expect(await row.textContent()).toContain('30 of 30 drained');
  });

  it('reads the cost page: dollars per day as a chart, and per route', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Cost' }).click();
    await page.getByRole('heading', { name: 'Cost', level: 1 }).waitFor();
    expect(await page.getByRole('img', { name: /Dollars per day/ }).count()).toBe(1);
    expect(await page.locator('figure.chart rect').count()).toBe(30);
    await page.getByRole('heading', { name: 'Per route' }).waitFor();
  });

  it('signs out, after which the console asks to sign in again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto(consoleUrl('/console/recommendations'));
    expect(page.url()).toContain('/console/sign-in');
    expect(dialogs).toEqual([]);
  });
});

describe('who may change what', { timeout: 120_000 }, () => {
  let context: BrowserContext;
  afterAll(async () => {
    await context?.close();
  });

  it('a user without the pricing role is offered no approve form, and a direct post of it is refused with 403 and changes nothing', async () => {
    const reader = await person(workspace.workspaceId, ['finance']);
    context = await newConsoleContext(browser);
    const page = await context.newPage();
    await signIn(page, reader.email, reader.password);
    await page.goto(consoleUrl('/console/recommendations/NUT'));
    expect(await page.getByRole('button', { name: 'Approve price' }).count()).toBe(0);
    await page.getByText('needs the pricing role').waitFor();

    const before = await recentTasks(workspace.workspaceId, workspace.connectorId);
    const csrf = await csrfTokenOf(page);
    const posted = await page.request.post(consoleUrl('/console/recommendations/NUT'), {
      form: { _csrf: csrf, _action: 'approve', price: '29.00' },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(403);
    expect(await readLatestApproval(workspace.workspaceId, 'NUT')).toBeUndefined();
    expect(await recentTasks(workspace.workspaceId, workspace.connectorId)).toEqual(before);
  });

  it('a post without the CSRF token is refused with 403, even from a pricing user, and changes nothing', async () => {
    const pricing = await person(workspace.workspaceId, ['pricing']);
    const own = await newConsoleContext(browser);
    try {
      const page = await own.newPage();
      await signIn(page, pricing.email, pricing.password);
      const posted = await page.request.post(consoleUrl('/console/recommendations/NUT'), {
        form: { _action: 'approve', price: '29.00' },
        maxRedirects: 0,
      });
      expect(posted.status()).toBe(403);
      const forged = await page.request.post(consoleUrl('/console/recommendations/NUT'), {
        form: { _csrf: 'not-the-token', _action: 'approve', price: '29.00' },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(403);
      expect(await readLatestApproval(workspace.workspaceId, 'NUT')).toBeUndefined();
    } finally {
      await own.close();
    }
  });

  it("one workspace's user never sees another's products, batches or write-backs, and a hostile name there is only text", async () => {
    const other = await newWorkspace('Other Seller');
    await drain(other, {
      product: [{ sku: 'OTHER-ONLY', name: 'Only elsewhere', category: 'Tools', costCents: 1000, currentPriceCents: 1500 }, HOSTILE],
    });
    const stranger = await person(other.workspaceId, ['admin', 'pricing', 'finance']);
    const own = await newConsoleContext(browser);
    try {
      const page = await own.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await signIn(page, stranger.email, stranger.password);
      await page.goto(consoleUrl('/console/recommendations'));
      const listed = await page.locator('table.data tbody th[scope="row"]').allTextContents();
      expect(listed).toEqual(['HOSTILE-1', 'OTHER-ONLY']);
      expect(await page.locator('table.data tbody').textContent()).toContain('<script>document.title="owned"</script>');
      await page.goto(consoleUrl('/console/recommendations/HOSTILE-1'));
      expect(await page.title()).not.toBe('owned');
      expect(dialogs).toEqual([]);

      const other = await page.goto(consoleUrl('/console/recommendations/BOLT'));
      expect(other?.status()).toBe(404);
      await page.getByRole('heading', { name: 'No product BOLT' }).waitFor();
      const overlong = await page.goto(consoleUrl(`/console/recommendations/${'X'.repeat(2_000)}`));
      expect(overlong?.status()).toBe(404);
      await page.getByText('The workspace knows no product with this SKU.').waitFor();
      expect(await page.getByRole('button', { name: 'Approve price' }).count()).toBe(0);
      await page.goto(consoleUrl('/console/batches'));
      expect(await page.locator('main').textContent()).not.toContain(workspace.connectorId);
      await page.goto(consoleUrl('/console/writebacks'));
      expect(await page.locator('main').textContent()).not.toContain('BOLT');
    } finally {
      await own.close();
    }
  });
});

describe('every page', { timeout: 300_000 }, () => {
  it('is served under a strict Content-Security-Policy, no wider than a desktop window, has no serious or critical accessibility violation, and is screenshotted', async () => {
    // The policy is asserted on the real answers; axe is injected in a context of its own that bypasses it.
    const strict = await newConsoleContext(browser);
    const audit = await newConsoleContext(browser, { bypassCSP: true });
    try {
      const page = await strict.newPage();
      const audited = await audit.newPage();
      await signIn(page, manager.email, manager.password);
      await signIn(audited, manager.email, manager.password);
      const navigation = await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link')
        .evaluateAll(
          // Browser-side: the links' own paths.
          (links) => links.map((link) => new URL((link as unknown as { href: string }).href).pathname),
        );
      const paths = [...new Set([...navigation, '/console/recommendations/BOLT'])];
      expect(paths).toEqual(
        expect.arrayContaining([
          '/console/recommendations',
          '/console/batches',
          '/console/writebacks',
          '/console/cost',
          '/console/adherence',
        ]),
      );
      const findings: string[] = [];
      for (const path of paths) {
        const response = await page.goto(consoleUrl(path));
        expect(response?.status(), path).toBe(200);
        const policy = response?.headers()['content-security-policy'] ?? '';
        expect(policy, path).toMatch(/default-src 'none'/);
        expect(policy, path).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
        // Tags alone: a hostile product name, escaped, may well say onerror= as text.
        expect(await response?.text(), path).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<[^>]*\s(?:on\w+|style)=/i);

        // At a desktop width no page is wider than the window: a table too wide for it scrolls inside its own region.
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        expect(overflow, `${path} is wider than the window by`).toBeLessThanOrEqual(0);

        await audited.goto(consoleUrl(path));
        for (const violation of await seriousAxeViolations(audited)) {
          findings.push(
            `${path}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
          );
        }
        const name = path === '/console' ? 'home' : path.replace(/^\/console\//, '').replaceAll('/', '-');
        await screenshot(page, name);
        // The README shows the list as a person first sees it, a window's height, and a product's page whole.
        if (path === '/console/recommendations') await screenshot(page, `${name}-window`, { fullPage: false });
      }
      expect(findings).toEqual([]);
    } finally {
      await strict.close();
      await audit.close();
    }
  });

  it('on a phone, 390 px wide, scrolls no page sideways and has no serious or critical accessibility violation on any', async () => {
    const audit = await newConsoleContext(browser, { bypassCSP: true });
    try {
      const page = await audit.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      await signIn(page, manager.email, manager.password);
      const navigation = await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link')
        .evaluateAll((links) => links.map((link) => new URL((link as unknown as { href: string }).href).pathname));
      const findings: string[] = [];
      for (const path of [...new Set([...navigation, '/console/recommendations/BOLT'])]) {
        expect((await page.goto(consoleUrl(path)))?.status(), path).toBe(200);
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        if (overflow > 0) findings.push(`${path}: scrolls ${overflow} px sideways`);
        for (const violation of await seriousAxeViolations(page)) {
          findings.push(`${path}: ${violation.id} (${violation.impact}) ${violation.help}`);
        }
        const name = path === '/console' ? 'home' : path.replace(/^\/console\//, '').replaceAll('/', '-');
        await screenshot(page, `${name}-phone`);
      }
      expect(findings).toEqual([]);
    } finally {
      await audit.close();
    }
  });
});
