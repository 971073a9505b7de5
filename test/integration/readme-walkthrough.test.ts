// The README's walkthrough run as a connector author runs it: its shell blocks, command by command, with curl against the local stack; only the keys, the host and the task id a reader copies are filled in.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

const run = promisify(execFile);

/** The README's sections whose shell blocks make the walkthrough, in the order a reader follows them. */
const sections = ['### Ingest a seller', '### Price lines', '### Approve a price and write it back'];

/** The shell blocks of one README section, each as its commands: a command ends where its quotes close and no `\` continues it. */
function commandsOf(readme: string, heading: string): string[] {
  const start = readme.indexOf(heading);
  const end = readme.indexOf('\n### ', start + heading.length);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const commands: string[] = [];
  for (const block of section
    .split('```sh\n')
    .slice(1)
    .map((rest) => rest.slice(0, rest.indexOf('```')))) {
    let pending = '';
    for (const line of block.split('\n')) {
      if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
      // An assignment's remark may hold an apostrophe ("# the task's id"): it is no part of the command.
      const assignment = pending === '' ? /^(\w+=\S+)\s+#.*$/.exec(line)?.[1] : undefined;
      if (assignment) {
        commands.push(assignment);
        continue;
      }
      pending += `${pending ? '\n' : ''}${line}`;
      const quotes = (pending.match(/'/g) ?? []).length;
      if (quotes % 2 === 0 && !pending.endsWith('\\')) {
        commands.push(pending);
        pending = '';
      }
    }
  }
  return commands;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are asserted field by field, as support.ts's are.
type Answer = Record<string, any>;

interface Step {
  readonly command: string;
  readonly output: string;
  readonly json: Answer;
}

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const steps: Step[] = [];
let workspace: TestWorkspace;

/** What a reader fills in: the keys `npm start` printed, the host it serves on, and the task id the claim showed. */
function filledIn(command: string): string {
  const host = inject('stack').gatewayUrl;
  const assignment = /^(\w+)=(.*)$/.exec(command);
  const value = (name: string) => {
    if (name === 'KEY') return workspace.keys.connector;
    if (name === 'ERP') return workspace.keys.erp;
    if (name === 'PW') return workspace.keys.pwLive;
    if (name === 'TASK') return String(steps.findLast((step) => step.command.includes('/writebacks/claim'))?.json.tasks?.[0]?.id);
    return undefined;
  };
  if (assignment?.[1] && value(assignment[1]) !== undefined) return `${assignment[1]}=${value(assignment[1])}`;
  return command.replaceAll('http://127.0.0.1:3000', host);
}

/** Runs one command in bash with the variables set so far; an assignment sets one more. */
async function runCommand(command: string, environment: Record<string, string>): Promise<Step> {
  const filled = filledIn(command);
  const assignment = /^(\w+)=(.*)$/s.exec(filled);
  const script = assignment ? `${filled}\nprintf %s "$${assignment[1]}"` : filled;
  const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${script}`], { env: { ...process.env, ...environment } });
  if (assignment?.[1]) environment[assignment[1]] = stdout;
  let json: Answer = {};
  try {
    json = JSON.parse(stdout) as Answer;
  } catch {
    // An assignment's value, not an answer.
  }
  return { command, output: stdout, json };
}

/** The answer of the first step whose command contains every one of `parts`. */
function answerOf(...parts: string[]): Answer {
  const step = steps.find((candidate) => parts.every((part) => candidate.command.includes(part)));
  if (!step) throw new Error(`no step of the walkthrough runs ${parts.join(' … ')}`);
  return step.json;
}

beforeAll(async () => {
  workspace = await newWorkspace('README walkthrough');
  const environment: Record<string, string> = {};
  for (const heading of sections) {
    if (heading === '### Price lines') await bandsOf(environment);
    for (const command of commandsOf(readme, heading)) {
      if (command.includes(COST_TYPO)) await sendCostTypo(environment);
      steps.push(await runCommand(command, environment));
    }
  }
}, 240_000);

/** The remark that sets the data-warnings example after a batch the README describes but does not show. */
const COST_TYPO = '# after a batch sent costCents 1200 for 120';

/** That batch, sent as the ingest section sends one: BOLT-10's cost typed as 12.00 for 1.20. */
async function sendCostTypo(environment: Record<string, string>): Promise<void> {
  const product = { sku: 'BOLT-10', externalId: 'ERP-881', name: 'Hex bolt M10', category: 'Fasteners', costCents: 1200, currency: 'USD' };
  await runCommand(
    `BATCH=$(curl -s -X POST $API/ingest/batches -H "Authorization: Bearer $KEY" | sed 's/.*"batchId":"\\([^"]*\\)".*/\\1/')`,
    environment,
  );
  await runCommand(
    `curl -s -X POST $API/ingest/batches/$BATCH/records -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' ` +
      `-d '${JSON.stringify({ entity: 'product', records: [{ ...product, currentPriceCents: 189 }] })}'`,
    environment,
  );
  await runCommand('curl -s -X POST $API/ingest/batches/$BATCH/commit -H "Authorization: Bearer $KEY"', environment);
  await bandsOf(environment);
}

/** "once the batch above shows bandsRecomputedAt": the reader looks again until it does. */
async function bandsOf(environment: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    const status = await runCommand('curl -s $API/ingest/batches/$BATCH -H "Authorization: Bearer $KEY"', environment);
    if (status.json.bandsRecomputedAt) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the walkthrough’s batch had no bands after three minutes');
}

describe('the README walkthrough, run as written', () => {
  it('runs every command of its ingest, price and write-back blocks', () => {
    expect(steps.length).toBeGreaterThan(20);
    for (const step of steps) expect(step.output, step.command).not.toBe('');
  });

  it('stages the four records, commits them, and lists and refuses to cancel the committed batch', () => {
    expect(answerOf('/records', '"entity": "product"')).toEqual({ staged: 1 });
    expect(answerOf('/commit').jobId).toMatch(/^job_/);
    expect(answerOf('/ingest/batches?status=open').data).toEqual([]);
    expect(answerOf('/cancel').error?.code).toBe('batch_already_committed');
  });

  it('prices the two known lines and names the unknown product', () => {
    const { lines } = answerOf('$API/prices');
    expect(lines[0]).toMatchObject({ ok: true, currency: 'USD' });
    expect(lines[1]).toMatchObject({ ok: true });
    expect(lines[2]).toMatchObject({ ok: false, error: { code: 'unknown_product', param: 'lines[2].productSku' } });
  });

  it('approves 1.89, asks to confirm 19.90, refuses 0.50 below the floor, and lists the approval', () => {
    expect(answerOf('/prices/BOLT-10?include=rationale,drivers')).toMatchObject({ sku: 'BOLT-10', current_price: 1.99 });
    expect(answerOf('/prices/BOLT-10?include=impact').impact?.status).toEqual(expect.any(String));
    expect(answerOf('"price": 1.89').status).toBe('published');
    expect(answerOf('"price": 19.9').error?.code).toBe('confirmation_required');
    expect(answerOf('"price": 0.5').error?.code).toBe('guardrail_violation');
    expect(answerOf('/approvals?limit=20').data?.[0]).toMatchObject({ status: 'published', price: 1.89 });
  });

  it('claims, extends and acks the task, and the price reads as applied', () => {
    const [task] = answerOf('/writebacks/claim').tasks;
    expect(task).toMatchObject({ productSku: 'BOLT-10', priceCents: 189 });
    expect(answerOf('/extend').task?.id).toBe(task.id);
    expect(answerOf('/writebacks/ack')).toMatchObject({ applied: 1, failed: 0 });
    const after = steps.find((step) => step.command === 'curl -s "$OVERVIEW/prices/BOLT-10" -H "Authorization: Bearer $PW"');
    expect(after?.json).toMatchObject({ sku: 'BOLT-10', current_price: 1.89 });
  });

  it('holds the product whose cost a later batch typed ten times too large, and asks to confirm its approval naming why', () => {
    const codes = (answerOf(COST_TYPO).warnings as Array<{ code: string }> | undefined)?.map((warning) => warning.code);
    expect(codes).toEqual(expect.arrayContaining(['cost_jump', 'price_below_cost']));
    const refused = answerOf('"price": 12.0').error;
    expect(refused?.code).toBe('confirmation_required');
    expect(refused?.message).toContain('cost_jump');
  });
});
