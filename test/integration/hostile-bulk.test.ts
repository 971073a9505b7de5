// Hostile input on the console's bulk approval: odd SKUs and field names in a selection, forged confirmation lines and ids, and an oversized form, each refused or left out with nothing approved.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { recentTasks } from '#shared/writebacks/listing.ts';
import { ConsoleBrowser, csrfTokenOf } from './console-session.ts';
import { long, unusualStrings } from './hostile-input-values.ts';
import { drain } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

const LIST = '/console/recommendations';
const FAN: ProductRecord = { sku: 'FAN-1', name: 'Desk fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 1600 };
const SCRIPT = '<script>alert("x")</script>';

let workspace: TestWorkspace;
let browser: ConsoleBrowser;
let token: string;

/** A line as the confirmation step writes one, from any value: the server must judge what it reads. */
function forged(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

async function nothingApproved(): Promise<void> {
  expect(await readLatestApproval(workspace.workspaceId, FAN.sku)).toBeUndefined();
  expect(await recentTasks(workspace.workspaceId, workspace.connectorId)).toEqual([]);
}

beforeAll(async () => {
  workspace = await newWorkspace('Hostile Bulk Seller');
  await drain(workspace, { product: [FAN] });
  const password = `chosen-${randomUUID()}`;
  const user = await createConsoleUser({
    workspaceId: workspace.workspaceId,
    email: `hostile-bulk-${randomUUID()}@example.com`,
    roles: ['pricing'],
    password,
  });
  browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  token = csrfTokenOf((await browser.get(LIST)).text);
}, 120_000);

describe('bulk approval under hostile input', { timeout: 240_000 }, () => {
  it('refuses or leaves out odd SKUs and field names in a selection, escaping whatever it shows, and approves nothing', async () => {
    const skus = [...unusualStrings, long(256), long(5000), SCRIPT, 'FAN-1,FAN-1', ''];
    for (const sku of skus) {
      const answer = await browser.request('POST', LIST, { _csrf: token, _action: 'review', 'pick.0': sku });
      const label = `SKU ${JSON.stringify(sku.slice(0, 40))}`;
      // A SKU of no product's shape is refused; one of that shape but no product is left out of the step.
      expect([200, 422], label).toContain(answer.status);
      if (answer.status === 200) expect(answer.text, label).toMatch(/Left out|None of the selected products/);
      expect(answer.text, label).not.toContain('<script>alert');
    }
    for (const name of ['pick.99999', '__proto__', 'pick.-1', 'pick.0.0', 'pick[]']) {
      const answer = await browser.request('POST', LIST, { _csrf: token, _action: 'review', [name]: FAN.sku });
      expect(answer.status, name).toBe(422);
      expect(answer.text, name).toContain('Select at least one product to approve.');
    }
    await nothingApproved();
  });

  it('refuses forged confirmation lines and ids, and approves nothing', async () => {
    const step = await browser.request('POST', LIST, { _csrf: token, _action: 'review', 'pick.0': FAN.sku });
    expect(step.status).toBe(200);
    const real = /name="line\.0"\s+value="([^"]+)"/.exec(step.text)?.[1] as string;
    const [sku, decision, , currency, large] = JSON.parse(Buffer.from(real, 'base64url').toString('utf8')) as unknown[];
    const bulkId = /name="bulkId" value="([^"]+)"/.exec(step.text)?.[1] as string;
    const refusedWhole = [
      'not base64 at all!',
      forged('{"__proto__":{"polluted":true}}'),
      forged([sku, decision, 1600, currency]),
      forged([sku, decision, 1600, currency, large, 'extra']),
      forged([sku, decision, 1600.5, currency, large]),
      forged([sku, decision, 0, currency, large]),
      forged([sku, decision, 1e300, currency, large]),
      forged([sku, decision, '1600', currency, large]),
      forged([sku, decision, 1600, 'usd', large]),
      forged([long(5000), decision, 1600, currency, large]),
      forged([sku, long(5000), 1600, currency, large]),
      forged([sku, decision, 1600, currency, 'yes']),
    ];
    for (const line of refusedWhole) {
      const answer = await browser.request('POST', LIST, { _csrf: token, _action: 'approve', bulkId, 'line.0': line, confirmLarge: 'yes' });
      expect(answer.status, line.slice(0, 60)).toBe(422);
      expect(answer.text).toContain('This confirmation is not one the console wrote');
    }
    // Well formed but not what the step showed: the SKU is refused on its own, as a moved recommendation is. Each is
    // sent under a review step of its own: a confirmation token makes one round, and other lines under it are refused.
    // (A line naming another decision at the price the recommendation still has is approved as shown: the tolerance
    // judges the price a person saw, not the decision id, which the line carries in clear.)
    for (const line of [forged([sku, decision, 99_999, currency, true]), forged([sku, decision, 1600, 'JPY', true])]) {
      const own = await browser.request('POST', LIST, { _csrf: token, _action: 'review', 'pick.0': FAN.sku });
      const ownId = /name="bulkId" value="([^"]+)"/.exec(own.text)?.[1] as string;
      const answer = await browser.request('POST', LIST, {
        _csrf: token,
        _action: 'approve',
        bulkId: ownId,
        'line.0': line,
        confirmLarge: 'yes',
      });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('Bulk approval: 0 of 1 approved');
    }
    for (const id of ['bulk_short', `bulk_${long(22, '!')}`, long(5000), SCRIPT]) {
      const answer = await browser.request('POST', LIST, { _csrf: token, _action: 'approve', bulkId: id, 'line.0': real });
      expect(answer.status, id.slice(0, 40)).toBe(404);
      expect(answer.text).not.toContain('<script>alert');
    }
    const missing = await browser.request('POST', LIST, { _csrf: token, _action: 'approve', 'line.0': real });
    expect(missing.status).toBe(422);
    const oversized = await browser.request('POST', LIST, {
      _csrf: token,
      _action: 'approve',
      bulkId,
      'line.0': real,
      padding: long(70_000),
    });
    expect(oversized.status).toBe(403);
    await nothingApproved();
  });
});
