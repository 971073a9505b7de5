// `npm start` as a newcomer runs it: ready line, demo keys, persistence, failures and a clean stop.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { waitForBatch } from './ingest-support.ts';
import { ConsoleBrowser } from './console-session.ts';
import { call } from './support.ts';

const stateDir = mkdtempSync(join(tmpdir(), 'pricing-start-'));
const children: ChildProcess[] = [];
afterAll(() => {
  // A test that failed half-way must not leave a stack (and its Java process) running.
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  rmSync(stateDir, { recursive: true, force: true });
});

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly url: string;
}

/** Runs `npm start` as a newcomer would (the same command behind it), on a free port and a state folder of its own. */
async function start(...args: string[]): Promise<Started> {
  const child = spawn(process.execPath, ['bin/start.ts', ...args], {
    cwd: projectRoot,
    env: { ...process.env, PORT: '0', PRICING_LOCAL_DIR: stateDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 60 s:\n${output}`)), 60_000);
    child.stdout?.on('data', () => {
      const ready = /ready at (http:\/\/\S+)/.exec(output);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, url };
}

/** Runs `npm start --fresh` where it cannot start, and waits for it to give up. */
function startExpectingExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/start.ts', '--fresh'], {
      cwd: projectRoot,
      env: { ...process.env, PRICING_LOCAL_DIR: stateDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

/** How many DynamoDB Local processes run on this machine. */
function dynamoDbLocalProcesses(): number {
  const listed = spawnSync('pgrep', ['-fc', 'DynamoDBLocal.jar'], { encoding: 'utf8' });
  return Number(listed.stdout.trim() || '0');
}

function printedKey(output: string, kind: string): string {
  const key = new RegExp(`^\\s+${kind}\\s+(\\S+)$`, 'm').exec(output)?.[1];
  if (!key) throw new Error(`no ${kind} key printed:\n${output}`);
  return key;
}

function portIsOpen(endpoint: string): Promise<boolean> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// Each test starts the whole stack, some twice: on a busy machine that takes far longer than a request does.
describe('npm start', { timeout: 150_000 }, () => {
  it('prints the ready line and demo keys, serves the printed connector key, and stops everything on SIGTERM', async () => {
    const started = await start('--fresh');
    const output = started.output();
    for (const kind of ['erp', 'storefront', 'connector', 'pw_live', 'pw_test']) expect(printedKey(output, kind)).toBeTruthy();

    const stackFile = join(stateDir, 'stack.json');
    const description = JSON.parse(readFileSync(stackFile, 'utf8'));
    expect(description).toMatchObject({
      gatewayUrl: started.url,
      tableName: 'pricing-service',
      queues: { drain: { url: expect.any(String) } },
    });

    const opened = await call('/api/v1/ingest/batches', { method: 'POST', key: printedKey(output, 'connector'), baseUrl: started.url });
    expect(opened.status).toBe(201);

    // The printed console address and demo sign-in open the console.
    expect(output).toContain(`Console at ${started.url}/console`);
    const email = /^ {2}sign in as +(\S+)$/m.exec(output)?.[1] ?? '';
    const password = /^ {2}password +(\S+)$/m.exec(output)?.[1] ?? '';
    const browser = new ConsoleBrowser(started.url);
    expect((await browser.signIn(email, password)).status).toBe(303);
    expect((await browser.get('/console/settings/users')).text).toContain(email);

    // The demo's sample catalogue went in through the ingest API and drains in the background.
    const sampleBatch = /sample catalogue .*\(batch ([0-9a-f-]{36})\)/.exec(output)?.[1];
    expect(sampleBatch).toBeDefined();
    const sample = await waitForBatch(printedKey(output, 'connector'), sampleBatch ?? '', ['drained', 'failed'], { baseUrl: started.url });
    expect(sample).toMatchObject({ status: 'drained', entities: ['product', 'customer', 'quote', 'order'], recordCount: 242 });
    // The printed erp key prices the sample's products from the history it brought.
    const priced = await call('/api/v1/prices', {
      method: 'POST',
      key: printedKey(output, 'erp'),
      headers: { 'idempotency-key': 'local-start-1' },
      body: { lines: [{ productSku: 'SKU-000001', customerExternalId: 'C-00001', quantity: 5 }] },
      baseUrl: started.url,
    });
    expect(priced.status, priced.text).toBe(200);
    expect(priced.json.lines[0]).toMatchObject({ ok: true, pricingDecisionId: expect.stringMatching(/^pd_/) });

    expect(await stop(started)).toBe(0);
    expect(await portIsOpen(description.dynamoDbEndpoint)).toBe(false);
    expect(await portIsOpen(started.url)).toBe(false);
    expect(existsSync(stackFile)).toBe(false);
  });

  it('keeps data and the demo keys across restarts unless started --fresh', async () => {
    const first = await start();
    const key = printedKey(first.output(), 'connector');
    expect(first.output()).toMatch(/Created the demo workspace/);
    expect(await stop(first)).toBe(0);

    const second = await start();
    try {
      expect(second.output()).toMatch(/from an earlier start/);
      expect(printedKey(second.output(), 'connector')).toBe(key);
      expect((await call('/api/v1/ingest/batches', { method: 'POST', key, baseUrl: second.url })).status).toBe(201);
    } finally {
      await stop(second);
    }
  });

  it('stops what it had started when SIGTERM comes during startup, and exits 0', async () => {
    const javaBefore = dynamoDbLocalProcesses();
    const child = spawn(process.execPath, ['bin/start.ts', '--fresh'], {
      cwd: projectRoot,
      env: { ...process.env, PORT: '0', PRICING_LOCAL_DIR: stateDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Its first line says it is starting what the signal must stop; DynamoDB Local then takes seconds to answer.
    await new Promise<void>((resolve) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Starting DynamoDB Local')) resolve();
      });
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(dynamoDbLocalProcesses()).toBe(javaBefore);
  });

  it('says which port is taken and exits non-zero when PORT is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = await startExpectingExit({ PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.output).toContain(`Port ${port} on 127.0.0.1 is in use`);
      expect(existsSync(join(stateDir, 'stack.json'))).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('says how to install Java when it is missing, and exits non-zero', async () => {
    const result = await startExpectingExit({ PATH: '/nonexistent', PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/Java 17 or newer.*apt-get install -y openjdk-17-jre-headless/s);
  });

  it('starts without a demo workspace when asked not to seed', async () => {
    const started = await start('--fresh', '--no-seed');
    try {
      expect(started.output()).not.toMatch(/demo workspace/i);
    } finally {
      await stop(started);
    }
  });
});
