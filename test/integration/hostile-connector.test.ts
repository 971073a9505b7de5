// Hostile input to the connector kit, run as an operator runs it: a SKU that carries terminal escapes, a command that
// must not see the worker's key, and export files whose cells, lines or documents no record could hold.
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { isControl } from '../../client/src/connector/terminal-text.ts';
import { seedPendingTasks } from '#lib/local/seed.ts';
import { connector } from './connector-support.ts';
import { unusualStrings } from './hostile-input-values.ts';
import { newWorkspace } from './support.ts';
import { storedTask } from './writebacks-support.ts';

// Each test starts the connector CLI as a process of its own, some of them several times, and a busy machine makes
// that slow: nothing here is about speed.
vi.setConfig({ testTimeout: 240_000 });

/** Sets a window title, rings the bell, turns text red, clears the screen by a C1 CSI, and reverses the line. */
const HOSTILE_SKU = `BOLT\u001b]0;owned\u0007${unusualStrings.find((text) => text.includes('\u001b['))}\u009b2J\u202e10`;

/** Pending write-back tasks for these SKUs, as an approval writes them; answers their ids. */
const pendingTasks = (workspaceId: string, connectorId: string, skus: readonly string[]) =>
  seedPendingTasks(workspaceId, connectorId, skus.length, { skus });

/** Control characters other than the line ends and tabs of the worker's own layout. */
function rawControls(text: string): string[] {
  return [...text].filter((char) => char !== '\n' && char !== '\t' && isControl(char.charCodeAt(0)));
}

const node = JSON.stringify(process.execPath);
/** Echoes the SKU on stdout and stderr, and refuses the task with it. */
const refuseWithSku = `${node} -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s);console.log("applying "+t.productSku);console.error("unknown SKU "+t.productSku);process.exit(1)})'`;

describe('the write-back worker, handed hostile task data', () => {
  it('prints a SKU carrying escape sequences, and the error that repeats it, with every control character shown', async () => {
    const workspace = await newWorkspace('Hostile Connector Escapes');
    const [id] = await pendingTasks(workspace.workspaceId, workspace.connectorId, [HOSTILE_SKU]);
    const url = inject('stack').gatewayUrl;
    const result = await connector(['writebacks', '--once', '--url', url, '--exec', refuseWithSku], {
      PRICING_KEY: workspace.keys.connector,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(rawControls(result.stdout)).toEqual([]);
    expect(rawControls(result.stderr)).toEqual([]);
    const shown = 'BOLT\\u001b]0;owned\\u0007\\u0007\\u001b[31m\\u009b2J\\u202e10';
    expect(result.stdout).toContain(`${id} ${shown} failed: unknown SKU ${shown}`);
    expect(result.stderr).toContain(`applying ${shown}\n`);
    // The service keeps the command's words as they were: only what is shown on a screen is escaped.
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'failed', error: `unknown SKU ${HOSTILE_SKU}` });
  });

  it('prints --json lines with no raw control character, which read back as the SKU exactly', async () => {
    const workspace = await newWorkspace('Hostile Connector Escapes JSON');
    const [id] = await pendingTasks(workspace.workspaceId, workspace.connectorId, [HOSTILE_SKU]);
    const url = inject('stack').gatewayUrl;
    const result = await connector(['writebacks', '--once', '--json', '--url', url, '--exec', refuseWithSku], {
      PRICING_KEY: workspace.keys.connector,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(rawControls(result.stdout)).toEqual([]);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.filter((event) => event.type === 'task')).toEqual([
      { type: 'task', id, sku: HOSTILE_SKU, result: 'failed', error: `unknown SKU ${HOSTILE_SKU}` },
    ]);
  });
});

describe("the write-back worker's command environment", () => {
  it('holds no PRICING_KEY, whether the worker read its key from PRICING_KEY or --key', async () => {
    const workspace = await newWorkspace('Hostile Connector Environment');
    const key = workspace.keys.connector;
    const [fromEnv, fromOption] = await pendingTasks(workspace.workspaceId, workspace.connectorId, ['ENV-1', 'ENV-2']);
    const url = inject('stack').gatewayUrl;
    // Exits 0 only when the variable is unset or empty.
    const command = 'test -z "$PRICING_KEY"';
    const first = await connector(['writebacks', '--once', '--limit', '1', '--url', url, '--exec', command], { PRICING_KEY: key });
    expect(first.code, first.stderr).toBe(0);
    const second = await connector(['writebacks', '--once', '--url', url, '--key', key, '--exec', command], { PRICING_KEY: key });
    expect(second.code, second.stderr).toBe(0);
    expect(await storedTask(workspace.workspaceId, String(fromEnv))).toMatchObject({ status: 'applied' });
    expect(await storedTask(workspace.workspaceId, String(fromOption))).toMatchObject({ status: 'applied' });
  });

  it("holds the worker's key in PRICING_KEY when the operator passes it with --pass-key", async () => {
    const workspace = await newWorkspace('Hostile Connector Pass Key');
    const key = workspace.keys.connector;
    const [id] = await pendingTasks(workspace.workspaceId, workspace.connectorId, ['PASS-1']);
    const result = await connector(
      [
        'writebacks',
        '--once',
        '--pass-key',
        '--url',
        inject('stack').gatewayUrl,
        '--key',
        key,
        '--exec',
        'test "$PRICING_KEY" = "$EXPECTED_KEY"',
      ],
      { EXPECTED_KEY: key },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    expect(await storedTask(workspace.workspaceId, String(id))).toMatchObject({ status: 'applied' });
  });
});

describe('the loader, handed files no record could come from', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-export-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The loader's heap, capped far below the files it is given: a file held whole ends the process. */
  const smallHeap = { NODE_OPTIONS: '--max-old-space-size=48' };

  /** `head`, then `megabytes` MB of `fill`, written a megabyte at a time. */
  function largeFile(name: string, head: string, megabytes: number, fill = 'x'): string {
    const path = join(dir, name);
    const descriptor = openSync(path, 'w');
    writeSync(descriptor, head);
    const megabyte = Buffer.alloc(1024 * 1024, fill);
    for (let written = 0; written < megabytes; written++) writeSync(descriptor, megabyte);
    closeSync(descriptor);
    return path;
  }

  it('stops a 128 MB CSV at its quote never closed, naming file and line, within a 48 MB heap', async () => {
    const path = largeFile('products.csv', 'sku,name\nA-1,ok\nB-2,"never closed\n', 128);
    const result = await connector(['load', '--dry-run', path], smallHeap);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${path}:3: a cell is over 256 KB: is the quote opened on line 3 ever closed? Nothing was sent.`);
  });

  it('stops a JSON Lines file at a line over 1 MB, naming it, within a 48 MB heap', async () => {
    const path = largeFile('customers.jsonl', '{"externalId":"C-1","name":"A"}\n{"externalId":"', 64);
    const result = await connector(['load', '--dry-run', path], smallHeap);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${path}:2: a line is over 1 MB. Nothing was sent.`);
  });

  it('stops an order spread over 200,000 rows at its 1,001st, within a 48 MB heap', async () => {
    const path = join(dir, 'orders.csv');
    const row = 'O-1,USD,2026-01-01T00:00:00Z,BOLT-10,1,120,185\n';
    writeFileSync(path, `externalId,currency,soldAt,productSku,quantity,costCents,soldPriceCents\n${row.repeat(200_000)}`);
    const result = await connector(['load', '--dry-run', path], smallHeap);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${path}:1002: order O-1 (from line 2) has more than 1,000 lines. Nothing was sent.`);
  });

  it('stops a row of two million cells at 1 MB, naming it, within a 48 MB heap', async () => {
    const path = largeFile('products-wide.csv', 'sku,name\nA-1,', 2, ',');
    const result = await connector(['load', '--dry-run', '--products', path], smallHeap);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`${path}:2: a row is over 1 MB. Nothing was sent.`);
  });
});
