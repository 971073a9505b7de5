// Acknowledging write-back tasks: each result judged on the task as it stands, and written all or nothing.
import * as v from 'valibot';
import { computeRecommendations, recommendationItems } from '#shared/recommendations/repository.ts';
import { inParallel } from '#platform/table/bulk.ts';
import { isConditionFailure } from '#platform/table/client.ts';
import { getItem, type TransactEntry, transactWrite } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { handOn, outboxEntry, updateWithEvents } from '#shared/webhooks/outbox.ts';
import { type AckVerdict, countedAs, judgeAck } from './rules.ts';
import { type AckCounts, type AckResult, type Task, TaskIdSchema } from './schema.ts';
import { CLOSE, CLOSE_NAMES, readTask, readTasks } from './tasks.ts';

/** The live lease the verdict was made on: a write that finds the task otherwise is refused. */
function finishCondition(task: Task, nowMs: number) {
  return {
    ConditionExpression: 'connectorId = :connector AND #status = :leased AND leaseUntilMs = :seenUntil AND leaseUntilMs > :nowMs',
    values: { ':connector': task.connectorId, ':leased': 'leased', ':seenUntil': task.leaseUntilMs ?? 0, ':nowMs': nowMs },
  };
}

/** The writers' writes are transactions or updates with events, which throw a refusal: a single write's, or a cancelled transaction's. */
function isRefusal(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return isConditionFailure(error) || name === 'TransactionCanceledException' || name === 'TransactionConflictException';
}

type Writer = (task: Task) => Promise<void>;

/**
 * The highest sequence of the SKU applied so far, on its latest-approval item (shared/approvals/latest.ts owns it),
 * read strongly here by key alone, as claims read that item.
 */
async function appliedSequence(workspaceId: string, sku: string): Promise<number> {
  const item = await getItem({ Key: keys.latestApproval(workspaceId, sku), ConsistentRead: true, ProjectionExpression: 'appliedSequence' });
  return typeof item?.appliedSequence === 'number' ? item.appliedSequence : 0;
}

/** Raises the SKU's applied sequence to the task's, on the condition that no newer task was applied meanwhile. */
function advanceApplied(workspaceId: string, task: Task & { sequence: number }): TransactEntry {
  return {
    Update: {
      Key: keys.latestApproval(workspaceId, task.productSku),
      UpdateExpression: 'SET appliedSequence = :sequence',
      ConditionExpression: 'attribute_exists(#version) AND (attribute_not_exists(appliedSequence) OR appliedSequence <= :sequence)',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':sequence': task.sequence },
    },
  };
}

/**
 * An applied task, the product's new current price and its recommendation at that price, all or nothing: a fault in
 * between can neither leave the task applied with the old price in place nor move the price of a task not applied.
 * A task acknowledged after a newer task of its SKU was applied (by another connector, or after its lease ran out) is
 * recorded as applied and overtaken, and leaves the product's price the newer one.
 */
function applyWriter(workspaceId: string, recommendations: ReadonlyMap<string, Record<string, unknown>[]>, nowMs: number): Writer {
  return async (task) => {
    const { ConditionExpression, values } = finishCondition(task, nowMs);
    const sequence = task.sequence;
    const overtaken = sequence !== undefined && (await appliedSequence(workspaceId, task.productSku)) > sequence;
    const recommendation = overtaken ? undefined : recommendations.get(task.productSku);
    const applied = newEvent(
      'writeback.applied',
      workspaceId,
      {
        writebackId: task.taskId,
        connectorId: task.connectorId,
        approvalId: task.approvalId,
        productSku: task.productSku,
        priceCents: task.priceCents,
        currency: task.currency,
        appliedAt: new Date(nowMs).toISOString(),
      },
      new Date(nowMs),
    );
    const items: TransactEntry[] = [
      outboxEntry(applied),
      {
        Update: {
          Key: keys.writeback(workspaceId, task.taskId),
          UpdateExpression: `SET #status = :applied, finishedAt = :now${overtaken ? ', overtaken = :overtaken' : ''} ${CLOSE}`,
          ConditionExpression,
          ExpressionAttributeNames: { '#status': 'status', ...CLOSE_NAMES },
          ExpressionAttributeValues: {
            ...values,
            ':applied': 'applied',
            ':now': new Date(nowMs).toISOString(),
            ...(overtaken ? { ':overtaken': true } : {}),
          },
        },
      },
    ];
    // A newer task applied between the read above and this write refuses it, and the ack judges it anew.
    if (!overtaken && sequence !== undefined) items.push(advanceApplied(workspaceId, { ...task, sequence }));
    if (recommendation) {
      items.push(
        {
          Update: {
            Key: keys.product(workspaceId, task.productSku),
            // Marked as a price a person approved: the next batch judges its data warnings with this price as in line.
            UpdateExpression: 'SET currentPriceCents = :price, writtenBackPriceCents = :price',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':price': task.priceCents },
          },
        },
        // With its rows in the console's lists, which show the change from the new current price.
        ...recommendation.map((item) => ({ Put: { Item: item } })),
      );
    }
    await transactWrite(items);
    await handOn([applied]);
  };
}

function failWriter(workspaceId: string, error: string | undefined, nowMs: number): Writer {
  return async (task) => {
    const { ConditionExpression, values } = finishCondition(task, nowMs);
    const reason = error ?? 'The connector reported a failure without a reason.';
    const failed = newEvent(
      'writeback.failed',
      workspaceId,
      {
        writebackId: task.taskId,
        connectorId: task.connectorId,
        approvalId: task.approvalId,
        productSku: task.productSku,
        error: reason,
        failedAt: new Date(nowMs).toISOString(),
      },
      new Date(nowMs),
    );
    await updateWithEvents(
      {
        Key: keys.writeback(workspaceId, task.taskId),
        UpdateExpression: `SET #status = :failed, finishedAt = :now, #error = :error ${CLOSE}`,
        ConditionExpression,
        ExpressionAttributeNames: { '#status': 'status', '#error': 'error', ...CLOSE_NAMES },
        ExpressionAttributeValues: {
          ...values,
          ':failed': 'failed',
          ':now': new Date(nowMs).toISOString(),
          ':error': reason,
        },
      },
      [failed],
    );
  };
}

/** Attempts at one ack before it is given up as a fault: concurrent acks of one task settle within a few. */
const ACK_ATTEMPTS = 5;

/**
 * Acknowledges a call's results. Each id counts once: the first result for it decides, and later ones in the same call
 * are ignored. Refused writes are judged anew (settleResult), so 20 identical acks at once end in one state and all
 * count it.
 */
export async function acknowledgeTasks(
  workspace: Pick<Workspace, 'workspaceId' | 'baseCurrency' | 'pricing'>,
  connectorId: string,
  results: readonly AckResult[],
  nowMs: number,
): Promise<AckCounts> {
  const counts: AckCounts = { applied: 0, failed: 0, expired: 0, ignored: 0 };
  const firsts = new Map<string, AckResult>();
  for (const result of results) {
    if (firsts.has(result.id) || !v.is(TaskIdSchema, result.id)) counts.ignored += 1;
    else firsts.set(result.id, result);
  }
  const tasks = await readTasks(workspace.workspaceId, [...firsts.keys()]);
  const verdicts = [...firsts.values()].map((result) => ({ result, verdict: judgeAck(tasks.get(result.id), result, connectorId, nowMs) }));

  // The recommendations of the products whose price is about to change, at their new prices, in one snapshot.
  // The newest task of a product is applied last (see below), so its price is the one to recommend from.
  const newPrices = new Map<string, number>();
  const applying = verdicts.flatMap(({ result, verdict }) => {
    const task = tasks.get(result.id);
    return verdict === 'apply' && task ? [task] : [];
  });
  for (const task of applying.sort((a, b) => a.createdAt.localeCompare(b.createdAt))) newPrices.set(task.productSku, task.priceCents);
  const recommendations = new Map(
    (await computeRecommendations(workspace, [...newPrices.keys()], nowMs, newPrices)).map((recommendation) => [
      recommendation.sku,
      recommendationItems(workspace.workspaceId, recommendation),
    ]),
  );

  // Results for one product run one after another, oldest task first, so that the newest approved price lands last;
  // different products run side by side.
  const byProduct = new Map<string, typeof verdicts>();
  for (const entry of verdicts) {
    const sku = tasks.get(entry.result.id)?.productSku ?? `\u0000${entry.result.id}`;
    const chain = byProduct.get(sku);
    if (chain) chain.push(entry);
    else byProduct.set(sku, [entry]);
  }
  const createdAt = (id: string) => tasks.get(id)?.createdAt ?? '';
  const chains = [...byProduct.values()].map((chain) => chain.sort((a, b) => createdAt(a.result.id).localeCompare(createdAt(b.result.id))));
  await inParallel(chains, 16, async (chain) => {
    for (const { result, verdict } of chain) {
      const settled = await settleResult(workspace.workspaceId, connectorId, result, tasks.get(result.id), verdict, recommendations, nowMs);
      counts[countedAs(settled)] += 1;
    }
  });
  return counts;
}

/**
 * Writes what one result's verdict calls for. A write refused because the task changed meanwhile (another ack, a
 * claim after expiry) reads the task again and judges anew; the verdict that stands is returned, to be counted.
 */
async function settleResult(
  workspaceId: string,
  connectorId: string,
  result: AckResult,
  seen: Task | undefined,
  verdict: AckVerdict,
  recommendations: ReadonlyMap<string, Record<string, unknown>[]>,
  nowMs: number,
): Promise<AckVerdict> {
  let task = seen;
  let current = verdict;
  for (let attempt = 1; (current === 'apply' || current === 'fail') && task; attempt++) {
    const write = current === 'apply' ? applyWriter(workspaceId, recommendations, nowMs) : failWriter(workspaceId, result.error, nowMs);
    try {
      await write(task);
      break;
    } catch (error) {
      if (!isRefusal(error) || attempt >= ACK_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
      task = await readTask(workspaceId, result.id);
      current = judgeAck(task, result, connectorId, nowMs);
    }
  }
  return current;
}
