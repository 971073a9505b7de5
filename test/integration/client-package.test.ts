// The client as a connector author gets it: packed with npm, installed from the tarball into a project outside the repository, type-checked strictly, and run with plain Node against the local stack, where it verifies a real webhook delivery.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newWorkspace, type TestWorkspace } from './support.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const clientPackage = JSON.parse(readFileSync(join(repo, 'client/package.json'), 'utf8')) as { version: string };
/** The repository's own compiler, by path: the scratch project installs nothing but the client and Node's types. */
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
/** Node's types at the version the repository uses, so that npm finds them in its cache. */
const nodeTypesVersion = (JSON.parse(readFileSync(join(repo, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string })
  .version;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** npm's own variables of an `npm test` run (its prefix, its workspace) would send the scratch install elsewhere. */
function cleanEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...environment, ...extra };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnvironment()): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function expectSuccess(what: string, result: Run): void {
  expect(result.code, `${what} failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
}

/**
 * What a connector author writes: it registers a loopback receiver for `batch.committed` with the overview key, opens
 * and commits a batch with the connector key, and checks the delivery that arrives with `verifyWebhook`. It prints
 * one JSON line of what it saw. Compiled with `--strict --exactOptionalPropertyTypes`, run as JavaScript.
 */
const program = `
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type BatchCommittedEvent,
  createPricingClient,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from '@pricing-service/client';

const baseUrl = process.env.PRICING_URL ?? '';
const connectorKey = process.env.CONNECTOR_KEY ?? '';
const overviewKey = process.env.OVERVIEW_KEY ?? '';

// Only a safety net against a hang: the test waits on what the program prints, not on how fast.
setTimeout(() => {
  console.error('no delivery arrived');
  process.exit(3);
}, 120_000).unref();

interface Delivery {
  readonly body: string;
  readonly headers: IncomingHttpHeaders;
}

let deliver: (delivery: Delivery) => void = () => undefined;
const delivered = new Promise<Delivery>((resolve) => (deliver = resolve));
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    response.writeHead(200).end('ok');
    deliver({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = \`http://127.0.0.1:\${(server.address() as AddressInfo).port}/hooks\`;

const owner = createPricingClient({ baseUrl, key: overviewKey });
const created = await owner.overview.POST('/v1/webhook-endpoints', { body: { url, event_types: ['batch.committed'] } });
if (!created.data) throw new Error(\`the endpoint was not created: \${created.response.status}\`);
const secret: string = created.data.secret;

const connector = createPricingClient({ baseUrl, key: connectorKey });
const { batchId } = await connector.openBatch();
await connector.commitBatch(batchId);

const delivery = await delivered;
const event: WebhookEvent = verifyWebhook(delivery.body, delivery.headers, secret);
if (event.type !== 'batch.committed') throw new Error(\`unexpected event \${event.type}\`);
const committed: BatchCommittedEvent = event;

let forgeryRefused = false;
try {
  verifyWebhook(delivery.body.replace(batchId, '00000000-0000-4000-8000-000000000000'), delivery.headers, secret);
} catch (error) {
  forgeryRefused = error instanceof WebhookVerificationError && error.reason === 'no_matching_signature';
}

// The README's include=impact, typed: compiled here, not called (the seller has no products).
async function priceWithImpact(sku: string) {
  const price = await owner.getPrice(sku, { include: ['rationale', 'impact'] });
  return price.impact;
}
void priceWithImpact;

console.log(
  JSON.stringify({
    batchId,
    type: committed.type,
    eventBatchId: committed.data.batchId,
    eventId: committed.id,
    webhookId: delivery.headers['webhook-id'],
    forgeryRefused,
  }),
);
server.close();
`;

/** A mistake the strict compiler must catch in the installed types, so that a clean compile means something. */
const mistake = `
import { createPricingClient, type WebhookEvent } from '@pricing-service/client';
const client = createPricingClient({ baseUrl: 'http://127.0.0.1:3000', key: 'svc_live_x' });
await client.claimWritebacks({ limit: '10' });
declare const event: WebhookEvent;
if (event.type === 'batch.committed') console.log(event.data.drainedCount);
`;

describe('the client package', () => {
  let packDirectory: string;
  let project: string;
  let seller: TestWorkspace;

  beforeAll(async () => {
    packDirectory = await mkdtemp(join(tmpdir(), 'pricing-client-pack-'));
    project = await mkdtemp(join(tmpdir(), 'pricing-client-project-'));
    seller = await newWorkspace('Client Package Seller');
    // `npm pack` runs the package's prepack, its build: the tarball holds what tsc made of the sources just now.
    expectSuccess('npm pack', await run('npm', ['pack', '--pack-destination', packDirectory], join(repo, 'client')));
    const [tarball] = (await readdir(packDirectory)).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toBe(`pricing-service-client-${clientPackage.version}.tgz`);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'connector-project', private: true, type: 'module' }));
    const install = [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      join(packDirectory, tarball ?? ''),
      `@types/node@${nodeTypesVersion}`,
    ];
    expectSuccess('npm install', await run('npm', install, project));
  }, 600_000);

  afterAll(async () => {
    await rm(packDirectory, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  it('installs outside the repository with its own openapi-fetch, and ships JavaScript and declarations only', () => {
    expect(relative(repo, project).startsWith('..')).toBe(true);
    const installed = join(project, 'node_modules/@pricing-service/client');
    expect(existsSync(join(project, 'node_modules/openapi-fetch/package.json'))).toBe(true);
    expect(existsSync(join(installed, 'dist/client/src/index.js'))).toBe(true);
    expect(existsSync(join(installed, 'dist/client/src/index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'dist/client/src/api-v1.d.ts'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toBe('1.0.0');
  });

  it('type-checks a program with --strict --exactOptionalPropertyTypes, and refuses a wrong one', async () => {
    await writeFile(join(project, 'program.ts'), program);
    await writeFile(join(project, 'mistake.ts'), mistake);
    const options = ['--strict', '--exactOptionalPropertyTypes', '--module', 'nodenext', '--target', 'es2024', '--types', 'node'];
    // Nothing is emitted unless the program compiles cleanly: the next test runs what this one compiled.
    expectSuccess('tsc', await run(process.execPath, [tsc, ...options, '--noEmitOnError', '--outDir', 'out', 'program.ts'], project));
    const refused = await run(process.execPath, [tsc, ...options, '--noEmit', 'mistake.ts'], project);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(/mistake\.ts\(4,.*TS2322/);
    expect(refused.stdout).toMatch(/mistake\.ts\(6,.*drainedCount/);
  }, 300_000);

  it('runs with plain Node against the local stack and verifies the webhook delivery the service sent it', async () => {
    const environment = cleanEnvironment({
      PRICING_URL: inject('stack').gatewayUrl,
      CONNECTOR_KEY: seller.keys.connector,
      OVERVIEW_KEY: seller.keys.pwLive,
    });
    const result = await run(process.execPath, ['out/program.js'], project, environment);
    expectSuccess('the program', result);
    const seen = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(seen).toMatchObject({ type: 'batch.committed', eventBatchId: seen.batchId, webhookId: seen.eventId, forgeryRefused: true });
    expect(seen.eventId).toMatch(/^evt_/);
  }, 300_000);

  it('gives the pricing-connector command from the built JavaScript', async () => {
    const help = await run(join(project, 'node_modules/.bin/pricing-connector'), ['--help'], project);
    expectSuccess('pricing-connector --help', help);
    expect(help.stdout).toContain('writebacks');
  });

  it('refuses a Node.js older than its engines with exit code 1 and one clear line, for load as for anything', async () => {
    // This Node.js says it is 20, as an old one would, before the command's first line runs.
    await writeFile(join(project, 'old-node.mjs'), "Object.defineProperty(process, 'version', { value: 'v20.11.1' });\n");
    const bin = join(project, 'node_modules/@pricing-service/client/dist/client/src/connector/bin.js');
    for (const args of [['load', 'products.csv'], ['--help']]) {
      const old = await run(process.execPath, ['--import', './old-node.mjs', bin, ...args], project);
      expect(old.code).toBe(1);
      expect(old.stderr.trim()).toMatch(
        /^pricing-connector needs Node\.js 24 or newer \(the package's engines: >=24\); this is Node\.js v20\.11\.1\./,
      );
      expect(old.stderr.trim().split('\n')).toHaveLength(1);
      expect(old.stdout).toBe('');
    }
  });
});
