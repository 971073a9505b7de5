// Sending a failed write-back again, against DynamoDB Local: once only under a double click, never for a price a newer approval replaced, never beside a task the connector still holds, and cancelled like any pending task by the next approval.
import { describe, expect, it } from 'vitest';
import { readApprovalHistory } from '#shared/approvals/history.ts';
import { readLatestApproval } from '#shared/approvals/latest.ts';
import { resendTask } from '#shared/approvals/resend.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';
import { ack, approve, claim, claimedTasks, storedTask } from './writebacks-support.ts';

const PRODUCT: ProductRecord = { sku: 'RESEND-1', name: 'Gasket', category: 'Seals', costCents: 1000, currentPriceCents: 1500 };

/** A workspace whose one SKU was approved at `price` and whose connector failed to apply it: the failed task's id. */
async function failedWriteback(name: string, price = 15.3): Promise<{ workspace: TestWorkspace; failedId: string }> {
  const workspace = await newWorkspace(name);
  await drain(workspace, { product: [PRODUCT] });
  expect((await approve(workspace.keys.pwLive, { sku: PRODUCT.sku, price })).status).toBe(200);
  const [task] = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
  if (!task) throw new Error('no task to fail');
  expect((await ack(workspace.keys.connector, [{ id: task.id, ok: false, error: 'price list locked' }])).status).toBe(200);
  return { workspace, failedId: task.id };
}

describe('sending a failed write-back again', { timeout: 120_000 }, () => {
  it('makes one pending task at the approved price however many times it is sent at once, and records who sent it', async () => {
    const { workspace, failedId } = await failedWriteback('Resend Twice');
    const outcomes = await Promise.all(
      [0, 1, 2].map(() => resendTask(workspace.workspaceId, failedId, { sku: PRODUCT.sku, by: 'usr_ann' }, new Date())),
    );
    const resent = outcomes.flatMap((outcome) => ('resent' in outcome ? [outcome.resent] : []));
    expect(resent).toHaveLength(1);
    expect(outcomes.filter((outcome) => 'refused' in outcome)).toHaveLength(2);
    const [task] = resent;
    expect(await storedTask(workspace.workspaceId, failedId)).toMatchObject({ status: 'failed', resentAs: task?.taskId });
    expect(await storedTask(workspace.workspaceId, String(task?.taskId))).toMatchObject({
      status: 'pending',
      priceCents: 1530,
      resendOf: { taskId: failedId, by: 'usr_ann' },
    });
    // The connector claims it like any task; the approval's history lists it beside the failed one.
    const claimed = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
    expect(claimed.map((one) => one.id)).toEqual([task?.taskId]);
    const history = await readApprovalHistory(workspace.workspaceId, PRODUCT.sku, { limit: 5 });
    expect(history.entries[0]?.approval.publishedTo.map((published) => published.writebackId)).toEqual([failedId, task?.taskId]);
  });

  it('refuses a task whose SKU a newer approval has published since, and a task that did not fail', async () => {
    const { workspace, failedId } = await failedWriteback('Resend Replaced');
    expect((await approve(workspace.keys.pwLive, { sku: PRODUCT.sku, price: 15.4 })).status).toBe(200);
    const refused = await resendTask(workspace.workspaceId, failedId, { sku: PRODUCT.sku, by: 'usr_ann' }, new Date());
    expect(refused).toEqual({ refused: expect.stringMatching(/approved again since/) });
    const latest = await readLatestApproval(workspace.workspaceId, PRODUCT.sku);
    const pendingId = latest?.taskIds[0] ?? '';
    expect(await resendTask(workspace.workspaceId, pendingId, { sku: PRODUCT.sku, by: 'usr_ann' }, new Date())).toEqual({
      refused: expect.stringMatching(/Only a failed write-back can be sent again/),
    });
    expect(await resendTask(workspace.workspaceId, 'wb_0000000000000000000000', { sku: PRODUCT.sku, by: 'usr_ann' }, new Date())).toEqual({
      refused: 'No such write-back task of RESEND-1.',
    });
  });

  it('leaves a task sent again to be cancelled by the next approval while it is pending, as any approval’s task is', async () => {
    const { workspace, failedId } = await failedWriteback('Resend Then Approve');
    const outcome = await resendTask(workspace.workspaceId, failedId, { sku: PRODUCT.sku, by: 'usr_ann' }, new Date());
    if (!('resent' in outcome)) throw new Error(outcome.refused);
    expect((await approve(workspace.keys.pwLive, { sku: PRODUCT.sku, price: 15.4 })).status).toBe(200);
    expect(await storedTask(workspace.workspaceId, outcome.resent.taskId)).toMatchObject({ status: 'cancelled' });
    const claimed = claimedTasks(await claim(workspace.keys.connector, { limit: 10 }));
    expect(claimed.map((task) => task.priceCents)).toEqual([1540]);
  });
});
