// One stand-in Lambda instance, run in a worker thread of its own (its own module state: caches, quota leases, rate memory), against the shared test table.
import { parentPort, workerData } from 'node:worker_threads';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { flushCosts } from '#shared/cost/ledger.ts';
import { chargeLines, refundLines, settleQuotaLeases } from '#shared/workspaces/quota.ts';
import { admitRequest } from '#shared/workspaces/rate.ts';

/** What the test asks an instance to do. */
export type InstanceTask =
  /** Price calls through the route's handler, one at a time as an instance serves them, until the month refuses one. */
  | { readonly kind: 'price'; readonly key: string; readonly lineCounts: readonly number[]; readonly idPrefix: string }
  /** `count` requests stamped in one second, side by side, against the rate. */
  | { readonly kind: 'admit'; readonly workspace: RateTerms; readonly atMs: number; readonly count: number }
  /** Charges of `lineCounts`, side by side, at one moment; every `refundEvery`-th charged call is refunded. */
  | {
      readonly kind: 'charge';
      readonly workspace: QuotaTerms;
      readonly atMs: number;
      readonly lineCounts: readonly number[];
      readonly refundEvery: number;
    };

interface RateTerms {
  readonly workspaceId: string;
  readonly rateLimit: number;
  readonly overviewRateLimit: number;
}
interface QuotaTerms {
  readonly workspaceId: string;
  readonly monthlyLines: number;
}

/** One answer, as the test judges it. */
export interface Answer {
  readonly lines: number;
  readonly status: number;
  readonly code?: string;
  readonly retryAfter?: string;
}

export interface InstanceReport {
  readonly answers: readonly Answer[];
  /** Of the charges: lines kept (charged and not refunded). */
  readonly keptLines: number;
}

/** A rate-limited call is sent again after this pause, at most this many times: the instance waits out the second. */
const RATE_PAUSE_MS = 100;
const MAX_RATE_RETRIES = 200;

async function priceCall(key: string, lines: number, idempotencyKey: string): Promise<Answer> {
  const { handler } = await import('../../functions/prices/price-lines.ts');
  const body = JSON.stringify({ lines: Array.from({ length: lines }, (_, index) => ({ productSku: `sku-${index}`, quantity: 1 })) });
  const event = buildEvent(
    {
      method: 'POST',
      url: '/api/v1/prices',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: Buffer.from(body),
      sourceIp: '127.0.0.1',
    },
    'POST /api/v1/prices',
    undefined,
  );
  const result = (await handler(
    event,
    createLambdaContext({ name: 'priceLines', memoryMb: 1024, timeoutSeconds: 30 }),
  )) as APIGatewayProxyStructuredResultV2;
  const status = result.statusCode ?? 500;
  const headers = (result.headers ?? {}) as Record<string, string>;
  const code = status === 200 ? undefined : (JSON.parse(String(result.body)) as { error?: { code?: string } }).error?.code;
  return { lines, status, ...(code ? { code } : {}), ...(headers['Retry-After'] ? { retryAfter: headers['Retry-After'] } : {}) };
}

async function priceUntilSpent(task: Extract<InstanceTask, { kind: 'price' }>): Promise<InstanceReport> {
  const answers: Answer[] = [];
  for (const [index, lines] of task.lineCounts.entries()) {
    let answer = await priceCall(task.key, lines, `${task.idPrefix}-${index}`);
    for (let retry = 0; answer.code === 'rate_limited' && retry < MAX_RATE_RETRIES; retry++) {
      answers.push(answer);
      await new Promise((resolve) => setTimeout(resolve, RATE_PAUSE_MS));
      answer = await priceCall(task.key, lines, `${task.idPrefix}-${index}`);
    }
    answers.push(answer);
    if (answer.code === 'monthly_volume_exceeded') break;
  }
  return { answers, keptLines: 0 };
}

async function admitAll(task: Extract<InstanceTask, { kind: 'admit' }>): Promise<InstanceReport> {
  const outcomes = await Promise.allSettled(Array.from({ length: task.count }, () => admitRequest(task.workspace, task.atMs)));
  const answers = outcomes.map((outcome): Answer => {
    if (outcome.status === 'fulfilled') return { lines: 0, status: 200 };
    const error = outcome.reason as { status?: number; code?: string; headers?: Record<string, string> };
    return {
      lines: 0,
      status: error.status ?? 500,
      ...(error.code ? { code: error.code } : {}),
      retryAfter: error.headers?.['Retry-After'],
    };
  });
  return { answers, keptLines: 0 };
}

async function chargeAll(task: Extract<InstanceTask, { kind: 'charge' }>): Promise<InstanceReport> {
  let keptLines = 0;
  const answers = await Promise.all(
    task.lineCounts.map(async (lines, index): Promise<Answer> => {
      try {
        await chargeLines(task.workspace, lines, task.atMs);
      } catch (error) {
        return { lines, status: 429, code: (error as { code?: string }).code };
      }
      if (task.refundEvery > 0 && index % task.refundEvery === 0) await refundLines(task.workspace, lines, task.atMs);
      else keptLines += lines;
      return { lines, status: 200 };
    }),
  );
  return { answers, keptLines };
}

const task = workerData as InstanceTask;
const report = task.kind === 'price' ? await priceUntilSpent(task) : task.kind === 'admit' ? await admitAll(task) : await chargeAll(task);
// As Lambda shuts the instance down: what it holds goes back to the table.
await settleQuotaLeases();
await flushCosts();
parentPort?.postMessage(report);
