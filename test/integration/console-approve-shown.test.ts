// Approving what was shown, through the local gateway: lines whose recommendation moved by a cent are approved as shown in one round, a line moved past the tolerance is refused and stays ticked, and one confirmation sent twice at once approves once.
import { describe, expect, it } from 'vitest';
import { readApprovalHistory } from '#shared/approvals/history.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { confirm, confirmationFields, person, review, tasksOf } from './bulk-approval-support.ts';
import { drain } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

/** Fans priced at their floors, each a move within 25% of its current price. */
const FANS: ProductRecord[] = [
  { sku: 'FAN-1', name: 'Desk fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 1600 },
  { sku: 'FAN-2', name: 'Floor fan', category: 'Fans', costCents: 1000, currentPriceCents: 1500, floorCents: 1650 },
];

/**
 * An unrelated batch moves the floors the fans are priced at after the step showed them: their recommendations follow.
 * Down by a cent, so that the price shown stays within the floor, which no tolerance lifts.
 */
async function moveFloors(workspace: TestWorkspace, cents: Readonly<Record<string, number>>): Promise<void> {
  const moved = FANS.filter((fan) => cents[fan.sku] !== undefined).map((fan) => ({
    ...fan,
    floorCents: (fan.floorCents as number) + (cents[fan.sku] as number),
  }));
  await drain(workspace, { product: moved });
}

async function sellerOfFans(name: string): Promise<TestWorkspace> {
  const workspace = await newWorkspace(name);
  await drain(workspace, { product: FANS });
  return workspace;
}

describe('approving what was shown', { timeout: 180_000 }, () => {
  it('approves in one round the lines whose recommendation moved by a cent, at the shown price, recorded without an override', async () => {
    const workspace = await sellerOfFans('Shown Cent Seller');
    const browser = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    await moveFloors(workspace, { 'FAN-1': -1, 'FAN-2': -1 });
    const done = await confirm(browser, fields);
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain('Bulk approval: 2 of 2 approved');
    for (const [sku, shown, recommended] of [
      ['FAN-1', 1600, 1599],
      ['FAN-2', 1650, 1649],
    ] as const) {
      const [entry] = (await readApprovalHistory(workspace.workspaceId, sku, { limit: 10 })).entries;
      expect(entry?.approval.priceCents, sku).toBe(shown);
      expect(entry?.approval.shown?.priceCents, sku).toBe(shown);
      expect(entry?.approval.recommendedPriceCents, sku).toBe(recommended);
      const tasks = await tasksOf(workspace, sku);
      expect(tasks, sku).toHaveLength(1);
      expect(tasks[0]?.reasonSummary, sku).toContain('the recommendation as shown');
      expect(tasks[0]?.reasonSummary, sku).not.toMatch(/over (the )?recommended/);
    }
    const page = await browser.get('/console/recommendations/FAN-1');
    expect(page.text).toContain('as shown; recommended 15.99 USD when approved');
  });

  it('refuses a line moved past the tolerance naming both prices, approves the other, and keeps the refused one ticked to review again', async () => {
    const workspace = await sellerOfFans('Shown Beyond Seller');
    const browser = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    await moveFloors(workspace, { 'FAN-1': -1, 'FAN-2': 100 });
    const done = await confirm(browser, fields);
    expect(done.status, done.text).toBe(200);
    expect(done.text).toContain('Bulk approval: 1 of 2 approved');
    expect(done.text).toMatch(/FAN-2[\s\S]*Not approved: The recommendation moved since it was shown, from 16\.50 USD to 17\.50 USD/);
    expect(done.text).toMatch(/<input[^>]*name="pick\.0"[^>]*value="FAN-2"[^>]*checked/);
    expect(done.text).not.toMatch(/value="FAN-1"[^>]*checked/);
    expect(await tasksOf(workspace, 'FAN-2')).toHaveLength(0);
    expect(await tasksOf(workspace, 'FAN-1')).toHaveLength(1);
  });

  it('approves once when the same confirmation is sent twice at once, and the second answer shows the first one’s result', async () => {
    const workspace = await sellerOfFans('Shown Twice Seller');
    const browser = await person(workspace.workspaceId, ['pricing']);
    const fields = confirmationFields((await review(browser, 'category=Fans')).text);
    const answers = await Promise.all([confirm(browser, fields), confirm(browser, fields)]);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).toContain('Bulk approval: 2 of 2 approved');
    }
    expect(answers.filter((answer) => answer.text.includes('This confirmation was sent before'))).toHaveLength(1);
    for (const sku of ['FAN-1', 'FAN-2']) {
      expect(await tasksOf(workspace, sku), sku).toHaveLength(1);
      expect((await readApprovalHistory(workspace.workspaceId, sku, { limit: 10 })).entries, sku).toHaveLength(1);
    }
  });
});
