// Write-back workers killed again and again while prices are approved, through the local gateway, one to three of them on one connector: each price is applied, none after a newer one, none after its lease, with the journal none twice, and the SKU's recorded price always the newest.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { projectRoot } from '#lib/stack/project.ts';
import { tableName } from '#platform/config.ts';
import { seededRandom } from '#platform/seeded-random.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain } from './prices-support.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';
import { storedTask } from './writebacks-support.ts';

// Every step here waits on processes of a busy machine; nothing is about speed, and no assertion is about time.
vi.setConfig({ testTimeout: 600_000 });

const SKUS = 30;
const ROUNDS = 4;
const LEASE_SECONDS = 4;
/** One command start in this many kills the worker. */
const KILL_ONE_IN = 5;
/** Approvals sent at once, per run. */
const APPROVERS = 4;

const products: ProductRecord[] = Array.from({ length: SKUS }, (_, index) => ({
  sku: `CHAOS-${index}`,
  name: `Chaos product ${index}`,
  category: 'Chaos',
  costCents: 1000,
  currentPriceCents: 1500,
  floorCents: 1200,
  ceilingCents: 2000,
}));

/**
 * The ERP: a shell command that logs its start (with the lease it was given) and its application. The commands whose
 * start number the schedule names kill their worker before they apply anything, and wait to be ended with it; one
 * that is not ended says so in the log. Its length (0–250 ms) comes from the schedule too. One command at a time per
 * worker (the default concurrency): a kill then comes while no other command of the worker is between applying and
 * exiting, the one moment no worker can see, and that only an idempotent command covers. It keeps the highest
 * sequence it applied per SKU, as the guide's adapter does, and refuses a lower one (logged, and exit 0: a newer price
 * is in place), under a lock per SKU, so that a price whose lease ran out while it waited cannot undo a newer one.
 */
const COMMAND = [
  'n=$(grep -c "^start" "$CHAOS_LOG")',
  'echo "start $PRICING_TASK_ID $PRICING_APPROVAL_ID $(date +%s%3N) $PRICING_LEASE_UNTIL $PRICING_SEQUENCE" >> "$CHAOS_LOG"',
  'if grep -qx "kill $n" "$CHAOS_PLAN"; then kill -KILL "$CHAOS_WORKER_PID"; sleep 30; echo "orphan $PRICING_TASK_ID" >> "$CHAOS_LOG"; exit 1; fi',
  'ms=$(grep -x "sleep $n [0-9]*" "$CHAOS_PLAN" | cut -d" " -f3)',
  'sleep "0.$(printf %03d "${ms:-0}")"',
  'sku=$(sed -n \'s/.*"productSku":"\\([^"]*\\)".*/\\1/p\')',
  'exec 9>"$CHAOS_DIR/lock.$sku"',
  'flock 9',
  'applied=$(cat "$CHAOS_DIR/sequence.$sku" 2>/dev/null || echo 0)',
  'if [ "$PRICING_SEQUENCE" -lt "$applied" ]; then echo "refuse $PRICING_TASK_ID" >> "$CHAOS_LOG"; exit 0; fi',
  'echo "$PRICING_SEQUENCE" > "$CHAOS_DIR/sequence.$sku"',
  'echo "apply $PRICING_TASK_ID" >> "$CHAOS_LOG"',
].join('\n');

interface Published {
  readonly taskId: string;
  readonly sku: string;
  /** The approval's place among its SKU's approvals, from 0. */
  readonly order: number;
}

interface Counts {
  tasks: number;
  appliedOnce: number;
  duplicates: number;
  stale: number;
  superseded: number;
  kills: number;
  startedAfterLease: number;
  orphans: number;
  /** Older prices the ERP refused by their sequence: the service handed them out after a newer one's lease ran out. */
  refusedByErp: number;
  /** Applied in the ERP but cancelled in the service. */
  appliedCancelled: number;
  /** Tasks recorded as applied after a newer one of their SKU was. */
  overtaken: number;
}

/** Starts a worker whose commands know its pid; it is the process `node bin/connector.ts`, which the commands kill. */
function startWorker(workspace: TestWorkspace, dir: string, journal: boolean, slot: number): ChildProcess {
  const args = [
    'bin/connector.ts',
    'writebacks',
    '--json',
    '--url',
    inject('stack').gatewayUrl,
    '--lease-seconds',
    String(LEASE_SECONDS),
    '--min-lease-margin',
    '1',
    '--limit',
    '5',
    '--grace-seconds',
    '20',
    '--exec',
    'sh "$CHAOS_SCRIPT"',
    ...(journal ? ['--journal', join(dir, `tasks-${slot}.journal`)] : []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: {
      ...process.env,
      PRICING_KEY: workspace.keys.connector,
      PRICING_URL: '',
      CHAOS_DIR: dir,
      CHAOS_LOG: join(dir, 'erp.log'),
      CHAOS_PLAN: join(dir, 'plan'),
      CHAOS_SCRIPT: join(dir, `command-${slot}.sh`),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The worker's own pid, for the commands: they run under it, in groups of their own.
  writeFileSync(join(dir, `worker-${slot}.pid`), String(child.pid));
  child.stderr?.resume();
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/**
 * One approval, retried under its Idempotency-Key when a busy machine makes the gateway answer 503 (the function
 * timed out, perhaps after it approved): its answer, and so its task, is the one approval's however many tries it took.
 */
async function approveOnce(workspace: TestWorkspace, sku: string, price: number): Promise<string> {
  const idempotencyKey = randomUUID();
  for (let attempt = 1; ; attempt++) {
    const answer = await call('/v1/prices/approve', {
      method: 'POST',
      key: workspace.keys.pwLive,
      body: { sku, price },
      headers: { 'idempotency-key': idempotencyKey },
    });
    if (answer.status === 200)
      return String((answer.json as { published_to: Array<{ writeback_id: string }> }).published_to[0]?.writeback_id);
    if (attempt >= 10 || ![503, 409].includes(answer.status)) expect(answer.status, answer.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
}

async function chaosRun(journal: boolean, seed: number, workers = 1): Promise<Counts> {
  const random = seededRandom(seed);
  const workspace = await newWorkspace(`Chaos ${journal ? 'With' : 'Without'} Journal, ${workers} worker${workers === 1 ? '' : 's'}`);
  await drain(workspace, { product: products });
  const dir = mkdtempSync(join(tmpdir(), 'connector-chaos-'));
  writeFileSync(join(dir, 'erp.log'), '');
  const plan: string[] = [];
  for (let start = 1; start <= SKUS * ROUNDS * 3; start++) {
    if (random() < 1 / KILL_ONE_IN) plan.push(`kill ${start}`);
    plan.push(`sleep ${start} ${Math.floor(random() * 250)}`);
  }
  writeFileSync(join(dir, 'plan'), `${plan.join('\n')}\n`);
  for (let slot = 0; slot < workers; slot++) {
    writeFileSync(join(dir, `command-${slot}.sh`), `CHAOS_WORKER_PID=$(cat "${join(dir, `worker-${slot}.pid`)}")\n${COMMAND}\n`);
  }

  let stopped = false;
  let kills = 0;
  const running = Array.from({ length: workers }, (_, slot) => startWorker(workspace, dir, journal, slot));
  // A worker the plan kills is started again at once, as a supervisor would.
  const supervisors = running.map(async (_, slot) => {
    while (!stopped) {
      await exited(running[slot] as ChildProcess);
      if (stopped) break;
      kills += 1;
      running[slot] = startWorker(workspace, dir, journal, slot);
    }
  });

  // Approvals keep coming while the workers come and go: each SKU gets ROUNDS new prices, one after the other, a few
  // SKUs side by side, each with pauses of its own seeded length.
  const published: Published[] = [];
  const queue = [...products.entries()];
  await Promise.all(
    Array.from({ length: APPROVERS }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [index, product] = next;
        const pause = seededRandom(seed * 1000 + index);
        for (let round = 0; round < ROUNDS; round++) {
          await new Promise((resolve) => setTimeout(resolve, pause() * 800));
          const taskId = await approveOnce(workspace, product.sku, 15 + (round + 1) / 100);
          published.push({ taskId, sku: product.sku, order: round });
        }
      }
    }),
  );

  // Every task ends applied or superseded; the last worker then gets SIGTERM and leaves in its own time.
  const statuses = new Map<string, string>();
  for (;;) {
    for (const { taskId } of published) {
      const status = statuses.get(taskId);
      if (status === 'applied' || status === 'cancelled' || status === 'failed') continue;
      statuses.set(taskId, String((await storedTask(workspace.workspaceId, taskId))?.status));
    }
    if ([...statuses.values()].every((status) => status === 'applied' || status === 'cancelled' || status === 'failed')) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  stopped = true;
  for (const worker of running) worker.kill('SIGTERM');
  await Promise.all(running.map((worker) => exited(worker)));
  await Promise.all(supervisors);

  const log = readFileSync(join(dir, 'erp.log'), 'utf8').trim().split('\n').filter(Boolean);
  const byTask = new Map(published.map((task) => [task.taskId, task]));
  const applications = new Map<string, number>();
  const newestApplied = new Map<string, number>();
  let stale = 0;
  let startedAfterLease = 0;
  let orphans = 0;
  let refusedByErp = 0;
  let appliedCancelled = 0;
  for (const line of log) {
    const [kind, taskId, , startedMs, leaseUntil] = line.split(' ');
    if (kind === 'orphan') orphans += 1;
    if (kind === 'refuse') refusedByErp += 1;
    if (kind === 'apply' && statuses.get(String(taskId)) === 'cancelled') appliedCancelled += 1;
    if (kind === 'start' && Number(startedMs) >= Date.parse(String(leaseUntil))) startedAfterLease += 1;
    if (kind !== 'apply') continue;
    const task = byTask.get(String(taskId));
    if (!task) throw new Error(`the ERP applied a task no approval published: ${line}`);
    applications.set(task.taskId, (applications.get(task.taskId) ?? 0) + 1);
    // Stale: an older approval's price applied after a newer approval's price of the same SKU.
    if ((newestApplied.get(task.sku) ?? -1) > task.order) stale += 1;
    newestApplied.set(task.sku, Math.max(newestApplied.get(task.sku) ?? -1, task.order));
  }

  // Every approval's price was applied, unless a newer approval of its SKU superseded it; the newest always was.
  for (const task of published) {
    const status = statuses.get(task.taskId);
    if (status === 'cancelled') continue;
    expect(status, `${task.taskId} (${task.sku}, approval ${task.order})`).toBe('applied');
    expect(applications.get(task.taskId) ?? 0, `${task.taskId} applied in the ERP`).toBeGreaterThanOrEqual(1);
  }
  // No command of a superseded task changed a SKU's recorded state: each product's price is its newest approval's.
  let overtaken = 0;
  for (const product of products) {
    const newest = published.findLast((task) => task.sku === product.sku) as Published;
    expect(statuses.get(newest.taskId)).toBe('applied');
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.product(workspace.workspaceId, product.sku), ConsistentRead: true }),
    );
    expect(Item?.currentPriceCents, product.sku).toBe(1500 + ROUNDS);
  }
  for (const task of published) if ((await storedTask(workspace.workspaceId, task.taskId))?.overtaken === true) overtaken += 1;
  const counts = [...applications.values()];
  return {
    tasks: published.length,
    appliedOnce: counts.filter((count) => count === 1).length,
    duplicates: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
    stale,
    superseded: [...statuses.values()].filter((status) => status === 'cancelled').length,
    kills,
    startedAfterLease,
    orphans,
    refusedByErp,
    appliedCancelled,
    overtaken,
  };
}

describe('the write-back worker under chaos', () => {
  it('applies every approved price, never one after a newer approval or after its lease, and with its journal none twice', async () => {
    // Two workspaces, side by side: the same plan of kills, without and with the journal.
    const [without, withJournal] = await Promise.all([chaosRun(false, 31), chaosRun(true, 31)]);
    console.log(`connector chaos without the journal: ${JSON.stringify(without)}`);
    console.log(`connector chaos with the journal:    ${JSON.stringify(withJournal)}`);
    for (const counts of [without, withJournal]) {
      expect(counts.kills).toBeGreaterThan(0);
      expect(counts.stale).toBe(0);
      expect(counts.startedAfterLease).toBe(0);
      expect(counts.orphans).toBe(0);
    }
    expect(withJournal.duplicates).toBe(0);
  });

  it('with two and with three workers on one connector, never applies an older price after a newer one, nor lets a superseded command set a price', async () => {
    const [two, three] = await Promise.all([chaosRun(true, 47, 2), chaosRun(true, 53, 3)]);
    console.log(`connector chaos with two workers:   ${JSON.stringify(two)}`);
    console.log(`connector chaos with three workers: ${JSON.stringify(three)}`);
    for (const counts of [two, three]) {
      expect(counts.kills).toBeGreaterThan(0);
      expect(counts.stale).toBe(0);
      expect(counts.startedAfterLease).toBe(0);
      expect(counts.orphans).toBe(0);
    }
  });
});
