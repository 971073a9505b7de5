// The operator's batch, dead-letter and parked-delivery commands against the grain: each bad argument is a clear error and an exit code, and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { getBatch } from '#shared/batches/repository.ts';
import type { Batch } from '#shared/batches/schema.ts';
import { listDeadLetters, queuePair } from '#lib/admin/dead-letters.ts';
import { long } from './hostile-input-values.ts';
import { batchWithProducts, connectorCaller, type TestBatch } from './ingest-support.ts';
import { admin, parkMessage } from './operator-cli.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

/**
 * Strings a command line can carry (argv holds no NUL), as workspace, batch or message ids: a few of each kind, since
 * every one is a process of its own.
 */
const hostileIds = ['../../etc/passwd', '\u202eSEED-0', '👩‍👩‍👧‍👦', long(5000), "ws_'; DROP TABLE", '-'];

/** Each case runs the CLI, a process of its own, several times over. */
const SLOW = { timeout: 180_000 };

let workspace: TestWorkspace;
let batch: TestBatch;
let stored: Batch | undefined;
let parked: string;

beforeAll(async () => {
  workspace = await newWorkspace('Hostile Operator Seller');
  batch = await batchWithProducts(connectorCaller(workspace));
  stored = await getBatch(workspace.workspaceId, batch.batchId);
  parked = await parkMessage('drain', { workspaceId: workspace.workspaceId, batchId: batch.batchId, jobId: 'job_hostile' }, 'kept');
});

/** Whatever was refused, the batch and the parked message are as they were. */
async function expectNothingChanged(): Promise<void> {
  expect(await getBatch(workspace.workspaceId, batch.batchId)).toEqual(stored);
  const letters = await listDeadLetters(await queuePair('drain'));
  expect(letters.map((letter) => letter.messageId)).toContain(parked);
}

async function expectRefused(args: readonly string[], code: number, message: RegExp): Promise<void> {
  const result = await admin(args);
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(code);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).toBe('');
}

describe('batch list and batch show with bad arguments', () => {
  it.each([
    [['batch', 'list'], 2, /--workspace is required/],
    [['batch', 'list', '--workspace', 'ws_NoSuchWorkspaceAtAll00'], 1, /workspace ws_NoSuchWorkspaceAtAll00 does not exist/],
    [
      ['batch', 'list', '--workspace', 'W', '--status', 'lost'],
      2,
      /invalid --status "lost": expected open, committed, draining, drained, failed/,
    ],
    [['batch', 'list', '--workspace', 'W', '--limit', '0'], 2, /--limit must be a whole number of at least 1/],
    [['batch', 'list', '--workspace', 'W', '--limit', '1e3'], 2, /--limit must be a whole number/],
    [['batch', 'list', '--workspace', 'W', '--limit', '101'], 2, /--limit must be at most 100/],
    [['batch', 'list', '--workspace', 'W', '--batch', 'B'], 2, /batch list takes no --batch/],
    [['batch', 'show', '--workspace', 'W'], 2, /--batch is required/],
    [['batch', 'show', '--workspace', 'W', '--batch', 'not-a-uuid'], 2, /invalid --batch: a batch id \(a UUID\)/],
    [['batch', 'show', '--workspace', 'W', '--batch', crypto.randomUUID()], 1, /no batch [0-9a-f-]{36} in workspace ws_/],
  ])('%j exits %i with a message that says why', SLOW, async (args, code, message) => {
    await expectRefused(
      args.map((arg) => (arg === 'W' ? workspace.workspaceId : arg)),
      code,
      message,
    );
  });

  it('refuses a hostile workspace or batch id as a bad argument, before anything is read', SLOW, async () => {
    for (const [index, id] of hostileIds.entries()) {
      // Each id is tried as a workspace or as a batch: both are checked before the table is read.
      const args = index % 2 ? ['--workspace', workspace.workspaceId, '--batch', id] : ['--workspace', id, '--batch', batch.batchId];
      await expectRefused(['batch', 'show', ...args], 2, /^admin: /);
    }
    await expectNothingChanged();
  });

  it("does not show another workspace's batch", SLOW, async () => {
    const other = await newWorkspace('Other Operator Seller');
    await expectRefused(['batch', 'show', '--workspace', other.workspaceId, '--batch', batch.batchId], 1, /no batch/);
  });
});

describe('dlq commands with bad arguments', () => {
  it.each([
    [['dlq', 'list'], /--queue is required/],
    [['dlq', 'list', '--queue', 'ingest'], /invalid --queue "ingest": expected drain, webhooks/],
    [['dlq', 'list', '--queue', 'drain-dlq'], /invalid --queue/],
    [['dlq', 'redrive', '--queue', 'drain'], /dlq redrive needs exactly one of --message ID or --all/],
    [['dlq', 'redrive', '--queue', 'drain', '--all', '--message', 'MESSAGE'], /exactly one of --message ID or --all/],
    [['dlq', 'redrive', '--queue', 'drain', '--message', 'not-a-message-id'], /invalid --message: a message id/],
    [['dlq', 'purge', '--queue', 'drain', '--all'], /add --yes/],
    [['dlq', 'purge', '--queue', 'drain', '--message', 'MESSAGE', '--yes'], /--yes confirms --all/],
    [
      ['dlq', 'purge', '--queue', 'drain', '--message', 'MESSAGE', '--queue-url', 'https://sqs.eu-west-1.amazonaws.com/123456789012/q'],
      /--queue-url names a deployed queue: it goes with --aws/,
    ],
    [['dlq', 'list', '--queue', 'drain', '--aws'], /--aws needs --queue-url URL/],
    [['dlq', 'list', '--queue', 'drain', '--aws', '--queue-url', 'http://evil.example/q'], /invalid --queue-url/],
    [['dlq', 'list', '--queue', 'drain', '--workspace', 'W'], /dlq list takes no --workspace/],
  ])('%j exits 2 with a message that says why, and changes nothing', SLOW, async (args, message) => {
    await expectRefused(
      args.map((arg) => (arg === 'MESSAGE' ? parked : arg)),
      2,
      message,
    );
    await expectNothingChanged();
  });

  it('refuses hostile message ids as bad arguments, and moves nothing', SLOW, async () => {
    for (const [index, id] of hostileIds.entries()) {
      // Redrive and purge read --message alike: each id is tried on one of them.
      await expectRefused(['dlq', index % 2 ? 'purge' : 'redrive', '--queue', 'drain', '--message', id], 2, /^admin: /);
    }
    await expectNothingChanged();
  });

  it('answers a well-formed message id the queue does not hold with exit 1, and moves nothing', SLOW, async () => {
    const unknown = crypto.randomUUID();
    await expectRefused(
      ['dlq', 'redrive', '--queue', 'drain', '--message', unknown],
      1,
      new RegExp(`no message ${unknown} in the drain dead-letter queue`),
    );
    await expectRefused(['dlq', 'purge', '--queue', 'webhooks', '--message', parked], 1, /no message .* in the webhooks dead-letter queue/);
    await expectNothingChanged();
  });
});

describe('webhook redeliver --parked with bad arguments', () => {
  it.each([
    [['webhook', 'redeliver', 'we_x', '--workspace', 'W', '--parked', '--event', 'evt_x'], 2, /exactly one of --event evt_… or --parked/],
    [['webhook', 'redeliver', 'we_x', '--workspace', 'W'], 2, /exactly one of --event evt_… or --parked/],
    [
      ['webhook', 'redeliver', 'we_nosuchendpoint', '--workspace', 'W', '--parked'],
      1,
      /no webhook endpoint we_nosuchendpoint in workspace/,
    ],
  ])('%j exits %i with a message that says why', SLOW, async (args, code, message) => {
    await expectRefused(
      args.map((arg) => (arg === 'W' ? workspace.workspaceId : arg)),
      code,
      message,
    );
    await expectNothingChanged();
  });
});
