// Bulk approval in the console through the local gateway: a filtered set approved one SKU at a time, a refusal beside the approvals, a resent confirmation, the bound, and who may.
import { beforeAll, describe, expect, it } from 'vitest';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { readApprovalHistory } from '#shared/approvals/history.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { updateWorkspace } from '#shared/workspaces/repository.ts';
import { csrfTokenOf } from './console-session.ts';
import { confirm, confirmationFields, LIST, person, picks, review, tasksOf, untickedBoxes } from './bulk-approval-support.ts';
import { drain } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

/** Fans priced above their current price by their floors, so that each approval moves a price; one past 25%. */
const FANS: ProductRecord[] = [
  { sku: 'FAN-1', name: 'Desk fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 1600 },
  { sku: 'FAN-2', name: 'Floor fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 1650 },
  { sku: 'FAN-3', name: 'Ceiling fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 2000 },
];
const OTHER: ProductRecord = {
  sku: 'KETTLE',
  name: 'Kettle',
  category: 'Kitchen',
  costCents: 1000,
  currentPriceCents: 1500,
  floorCents: 1600,
};

/** A seller with the fans and a kettle drained, its connector taking write-backs. */
async function seller(): Promise<TestWorkspace> {
  const workspace = await newWorkspace('Bulk Approving Seller');
  await drain(workspace, { product: [...FANS, OTHER] });
  return workspace;
}

describe('bulk approval in the console', { timeout: 180_000 }, () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await seller();
  }, 120_000);

  it('approves a filtered set, one approval per SKU at its recommended price, and the list shows them pending', async () => {
    const browser = await person(workspace.workspaceId, ['pricing']);
    const step = await review(browser, 'category=Fans');
    expect(step.status, step.text).toBe(200);
    expect(step.text).toContain('Confirm approving 3 products');
    expect(step.text).not.toContain('KETTLE');
    const fields = confirmationFields(step.text);
    expect(Object.keys(fields).filter((name) => name.startsWith('line.'))).toHaveLength(3);
    // FAN-3 moves past the default 25%: its own box, the only one left unticked, confirms it.
    const boxes = untickedBoxes(step.text);
    expect(Object.keys(boxes)).toEqual(['confirm.2']);
    const done = await confirm(browser, { ...fields, ...boxes });
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain('Bulk approval: 3 of 3 approved');
    for (const fan of FANS) {
      const latest = await readLatestApproval(workspace.workspaceId, fan.sku);
      expect(latest, fan.sku).toBeDefined();
      const tasks = await tasksOf(workspace, fan.sku);
      expect(tasks, fan.sku).toHaveLength(1);
      expect(tasks[0]?.priceCents).toBeGreaterThanOrEqual(fan.floorCents as number);
    }
    expect(await readLatestApproval(workspace.workspaceId, OTHER.sku)).toBeUndefined();
    const pending = await browser.get(`${LIST}?category=Fans&state=pending`);
    for (const fan of FANS) expect(pending.text).toContain(`>${fan.sku}</a>`);
  });

  it('approves nothing twice when the same confirmation is sent again', async () => {
    const other = await newWorkspace('Bulk Resending Seller');
    await drain(other, { product: [FANS[0] as ProductRecord, FANS[1] as ProductRecord] });
    const browser = await person(other.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    const first = await confirm(browser, fields);
    const again = await confirm(browser, fields);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.text).toContain('This confirmation was sent before: these are the results of that send. Nothing was approved again.');
    for (const sku of ['FAN-1', 'FAN-2']) {
      expect(await tasksOf(other, sku), sku).toHaveLength(1);
      const history = await readApprovalHistory(other.workspaceId, sku, { limit: 10 });
      expect(history.entries, sku).toHaveLength(1);
    }
  });

  it('refuses the SKU whose recommendation moved past the tolerance after it was shown, and approves the others', async () => {
    const other = await newWorkspace('Bulk Moving Seller');
    await drain(other, { product: FANS });
    const browser = await person(other.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    // A batch raises FAN-2's floor by a dollar meanwhile: its recommendation moves past the 1% an approval of the shown price allows.
    await drain(other, { product: [{ ...(FANS[1] as ProductRecord), floorCents: 1750 }] });
    const done = await confirm(browser, { ...fields, confirmLarge: 'yes' });
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain('Bulk approval: 2 of 3 approved');
    expect(done.text).toMatch(/Not approved: The recommendation moved since it was shown, from 16\.50 USD to 17\.50 USD/);
    expect(await readLatestApproval(other.workspaceId, 'FAN-2')).toBeUndefined();
    expect(await tasksOf(other, 'FAN-2')).toHaveLength(0);
    expect(await readLatestApproval(other.workspaceId, 'FAN-1')).toBeDefined();
  });

  it('leaves a large change its box did not confirm unattempted and ticked for another review, and approves the others', async () => {
    const other = await newWorkspace('Bulk Unconfirmed Seller');
    await drain(other, { product: FANS });
    const browser = await person(other.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    const done = await confirm(browser, fields);
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain('Bulk approval: 2 of 3 approved');
    expect(done.text).toMatch(/FAN-3[\s\S]*Not attempted: Its large change was not confirmed: review it again to confirm it\./);
    expect(done.text).toMatch(/name="pick\.0" type="checkbox" value="FAN-3" checked/);
    expect(await readLatestApproval(other.workspaceId, 'FAN-3')).toBeUndefined();
    expect(await readLatestApproval(other.workspaceId, 'FAN-1')).toBeDefined();
  });

  it('approves only the lines left ticked, and unticks by default a product whose last approval is still being written back', async () => {
    const other = await newWorkspace('Bulk Unticking Seller');
    await drain(other, { product: [FANS[0] as ProductRecord, FANS[1] as ProductRecord] });
    const browser = await person(other.workspaceId, ['pricing']);
    const step = await review(browser, 'category=Fans');
    const fields = confirmationFields(step.text);
    // Unticking FAN-2 leaves it out: its line is not sent.
    const { ['line.1']: _left, ...ticked } = fields;
    const done = await confirm(browser, ticked);
    expect(done.text).toContain('Bulk approval: 1 of 1 approved');
    expect(await tasksOf(other, 'FAN-1')).toHaveLength(1);
    expect(await readLatestApproval(other.workspaceId, 'FAN-2')).toBeUndefined();

    // FAN-1's write-back is pending: the next review shows it, marked and unticked, and approves only FAN-2.
    const next = await review(browser, 'category=Fans');
    expect(next.text).toContain('Its last approval is still being written back: this one would replace it.');
    expect(Object.keys(untickedBoxes(next.text))).toEqual(['line.0']);
    const second = await confirm(browser, confirmationFields(next.text));
    expect(second.text).toContain('Bulk approval: 1 of 1 approved');
    expect(await tasksOf(other, 'FAN-1')).toHaveLength(1);
    expect(await tasksOf(other, 'FAN-2')).toHaveLength(1);
  });

  it('refuses a confirmation with every line unticked, approving nothing', async () => {
    const other = await newWorkspace('Bulk Nothing Ticked Seller');
    await drain(other, { product: [FANS[0] as ProductRecord] });
    const browser = await person(other.workspaceId, ['pricing']);
    const { ['line.0']: _left, ...none } = confirmationFields((await review(browser, 'category=Fans')).text);
    const done = await confirm(browser, none);
    expect(done.status).toBe(422);
    expect(done.text).toContain('No product was left ticked: nothing was approved.');
    expect(await readLatestApproval(other.workspaceId, 'FAN-1')).toBeUndefined();
  });

  it('waits for a second approver past the workspace threshold, and a second bulk approval of the waiting set publishes them', async () => {
    const other = await newWorkspace('Bulk Two-Person Seller');
    await updateWorkspace(other.workspaceId, { pricing: { secondApprovalPct: 5 } });
    await drain(other, { product: [FANS[0] as ProductRecord, FANS[1] as ProductRecord] });
    const first = await person(other.workspaceId, ['pricing']);
    const waiting = await confirm(first, confirmationFields((await review(first, 'category=Fans')).text));
    expect(waiting.text).toContain('Bulk approval: 2 of 2 approved');
    expect(waiting.text).toContain('Waiting for a second approver until');
    expect(await tasksOf(other, 'FAN-1')).toHaveLength(0);
    const second = await person(other.workspaceId, ['pricing']);
    const step = await review(second, 'state=waiting');
    expect(step.text).toContain('Confirm approving 2 products');
    const published = await confirm(second, confirmationFields(step.text));
    expect(published.text).toContain('Approved as the second approver: 1 pending write-back.');
    expect(await tasksOf(other, 'FAN-1')).toHaveLength(1);
    expect(await tasksOf(other, 'FAN-2')).toHaveLength(1);
  });
});

describe('who may approve in bulk, and how much', { timeout: 120_000 }, () => {
  let workspace: TestWorkspace;
  beforeAll(async () => {
    workspace = await seller();
  }, 120_000);

  it('offers a viewer no selection, and refuses their review and confirmation with 403, approving nothing', async () => {
    const viewer = await person(workspace.workspaceId, ['finance']);
    const list = await viewer.get(`${LIST}?category=Fans`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('FAN-1');
    expect(Object.keys(picks(list.text))).toHaveLength(0);
    const token = csrfTokenOf(list.text);
    const reviewed = await viewer.request('POST', LIST, { _csrf: token, _action: 'review', 'pick.0': 'FAN-1' });
    expect(reviewed.status).toBe(403);
    const pricing = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(pricing, 'category=Fans')).text);
    const confirmed = await viewer.request('POST', LIST, { ...fields, _csrf: token, confirmLarge: 'yes' });
    expect(confirmed.status).toBe(403);
    expect(confirmed.text).toContain('This needs the pricing role');
    expect(await readLatestApproval(workspace.workspaceId, 'FAN-1')).toBeUndefined();
  });

  it('refuses a bulk approval while the overview feature is off, with 403, as a single approval is', async () => {
    const other = await newWorkspace('Bulk Featureless Seller');
    const pricing = await person(other.workspaceId, ['pricing']);
    await updateWorkspace(other.workspaceId, { features: ['writebacks'] });
    const token = csrfTokenOf((await pricing.get(LIST)).text);
    const reviewed = await pricing.request('POST', LIST, { _csrf: token, _action: 'review', 'pick.0': 'FAN-1' });
    expect(reviewed.status).toBe(403);
    expect(reviewed.text).toContain('The workspace does not have the overview feature.');
  });

  it('refuses a post without the session token, approving nothing', async () => {
    const pricing = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(pricing, 'category=Fans')).text);
    const { _csrf: _, ...withoutToken } = fields;
    expect((await confirm(pricing, withoutToken)).status).toBe(403);
    expect((await confirm(pricing, { ...fields, _csrf: 'stale' })).status).toBe(403);
    expect(await readLatestApproval(workspace.workspaceId, 'FAN-1')).toBeUndefined();
  });

  it('refuses a selection of more than 50 products, and an empty one, saying so and approving nothing', async () => {
    const pricing = await person(workspace.workspaceId, ['pricing']);
    const list = await pricing.get(LIST);
    const token = csrfTokenOf(list.text);
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`pick.${i}`, `SKU-${i}`]));
    const tooMany = await pricing.request('POST', LIST, { _csrf: token, _action: 'review', ...many });
    expect(tooMany.status).toBe(422);
    expect(tooMany.text).toContain('A bulk approval takes at most 50 products; 51 were selected.');
    const none = await pricing.request('POST', LIST, { _csrf: token, _action: 'review' });
    expect(none.status).toBe(422);
    expect(none.text).toContain('Select at least one product to approve.');
    const fields = confirmationFields((await review(pricing, 'category=Fans')).text);
    const line = fields['line.0'] as string;
    const lines = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`line.${i}`, line]));
    const confirmed = await pricing.request('POST', LIST, { ...fields, ...lines });
    expect(confirmed.status).toBe(422);
    expect(confirmed.text).toContain('at most 50 products; 51 were selected');
    expect(await readLatestApproval(workspace.workspaceId, 'FAN-1')).toBeUndefined();
  });

  it('refuses a confirmation whose lines the console did not write', async () => {
    const pricing = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(pricing, 'category=Fans')).text);
    const tampered = await confirm(pricing, { ...fields, 'line.0': 'bm90IGEgbGluZQ' });
    expect(tampered.status).toBe(422);
    expect(tampered.text).toContain('This confirmation is not one the console wrote');
    expect(await readLatestApproval(workspace.workspaceId, 'FAN-1')).toBeUndefined();
  });
});
