// The connector CLI's write-back worker run as a connector author runs it, against the shared local stack.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import { seedPendingTasks } from '#lib/local/seed.ts';
import { connector } from './connector-support.ts';
import { newWorkspace } from './support.ts';
import { storedTask } from './writebacks-support.ts';

// Each test starts the connector CLI as a process of its own, some of them several times, and a busy machine makes
// that slow: nothing here is about speed.
vi.setConfig({ testTimeout: 240_000 });

/** Fails SEED-1 with a message on stderr and applies every other task, after reading the task from stdin. */
const command =
  `${JSON.stringify(process.execPath)} -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{` +
  `const t=JSON.parse(s);if(t.id!==process.env.PRICING_TASK_ID)process.exit(3);` +
  `if(t.productSku==="SEED-1"){console.error("Price list locked for "+t.productSku);process.exit(1)}})'`;

describe('the connector write-back worker', () => {
  it('applies the tasks whose command exits 0 and fails the others with their stderr, then exits with --once', async () => {
    const workspace = await newWorkspace('Connector Worker');
    const [applied, failed] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 2, { products: true });
    const key = workspace.keys.connector;
    const result = await connector(['writebacks', '--once', '--json', '--url', inject('stack').gatewayUrl, '--exec', command], {
      PRICING_KEY: key,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'task')).toEqual([
      { type: 'task', id: applied, sku: 'SEED-0', result: 'applied' },
      { type: 'task', id: failed, sku: 'SEED-1', result: 'failed', error: 'Price list locked for SEED-1' },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'summary', claimed: 2, acks: { applied: 1, failed: 1, expired: 0, ignored: 0 } });

    expect(await storedTask(workspace.workspaceId, String(applied))).toMatchObject({ status: 'applied' });
    expect(await storedTask(workspace.workspaceId, String(failed))).toMatchObject({
      status: 'failed',
      error: 'Price list locked for SEED-1',
    });
  });

  it('prints a line per task and a summary, and exits 0 at once when nothing is claimable', async () => {
    const workspace = await newWorkspace('Connector Worker Text');
    const [id] = await seedPendingTasks(workspace.workspaceId, workspace.connectorId, 1, { products: true });
    const args = ['writebacks', '--once', '--url', inject('stack').gatewayUrl, '--key', workspace.keys.connector, '--exec', 'exit 0'];
    const first = await connector(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${id} SEED-0 ok`);
    expect(first.stdout).toContain('1 claimed: 1 ok, 0 failed');
    const second = await connector(args);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('0 claimed');
  });

  it('exits 1 with a clear message, and without the key, when the key is refused', async () => {
    const key = 'svc_live_NotAKeyTheServiceEverIssued000000';
    const result = await connector(['writebacks', '--once', '--url', inject('stack').gatewayUrl, '--key', key, '--exec', 'true']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the API refused the key (401');
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
  });

  it('exits 1 when no local stack is running and no URL is given', async () => {
    const result = await connector(['writebacks', '--once', '--key', 'svc_live_x', '--exec', 'true'], {
      PRICING_LOCAL_DIR: mkdtempSync(join(tmpdir(), 'no-stack-')),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no local stack is running');
  });

  it.each([
    [['writebacks', '--key', 'k']],
    [['writebacks', '--exec', 'true']],
    [['writebacks', '--exec', 'true', '--key', 'k', '--limit', '101']],
    [['writebacks', '--exec', 'true', '--key', 'k', '--lease-seconds', '0']],
    [['writebacks', '--exec', 'true', '--key', 'k', '--bogus']],
    [['writebacks', '--exec', 'true', '--key', 'k', '--lease-seconds', '10', '--min-lease-margin', '10']],
    [['writebacks', '--exec', 'true', '--key', 'k', '--journal', '']],
    [['claim', '--exec', 'true', '--key', 'k']],
  ])('exits 2 with the usage for %j', async (args) => {
    const result = await connector(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage: npm run --silent connector -- writebacks');
  });
});
