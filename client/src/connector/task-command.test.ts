// A task's command as really spawned: what it receives, and what comes back of how it ended.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { commandEnvironment, taskCommand } from './task-command.ts';

const task = {
  id: 'wb_1',
  productSku: 'SKU-1',
  priceCents: 1234,
  currency: 'USD',
  leaseUntil: '2026-11-27T10:00:00.000Z',
  approvalId: 'apv_1',
};
const node = JSON.stringify(process.execPath);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a task command', () => {
  it('gets the task as JSON on stdin and its id in PRICING_TASK_ID, and its stderr comes back', async () => {
    const echo = new PassThrough();
    const script = `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const t=JSON.parse(s);console.error(process.env.PRICING_TASK_ID+' '+t.productSku+' '+t.priceCents);process.exit(4)})`;
    const outcome = await taskCommand({ command: `${node} -e "${script}"`, echo }).run(task);
    expect(outcome).toEqual({ code: 4, signal: null, stderr: 'wb_1 SKU-1 1234\n' });
  });

  it('ends with code 0 even when the command never reads its stdin', async () => {
    const outcome = await taskCommand({ command: 'true', echo: new PassThrough() }).run(task);
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
  });

  it('ends the commands still running when told to, as a second signal does', async () => {
    const commands = taskCommand({ command: 'sleep 30', echo: new PassThrough() });
    const outcome = commands.run(task);
    commands.terminate();
    expect((await outcome).code).not.toBe(0);
  });

  it('ends a command told to stop before its process group exists, which the signal cannot reach', async () => {
    const commands = taskCommand({ command: 'sleep 30', echo: new PassThrough() });
    const outcome = commands.run(task);
    // As the kernel answers a signal to a group the new process has not formed yet.
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
    });
    try {
      commands.terminate();
    } finally {
      kill.mockRestore();
    }
    expect((await outcome).code).not.toBe(0);
  }, 20_000);

  it("gets its task's id, its approval's id, its sequence and its lease's end in the environment", async () => {
    const outcome = await taskCommand({
      command: 'echo "$PRICING_TASK_ID $PRICING_APPROVAL_ID $PRICING_SEQUENCE $PRICING_LEASE_UNTIL" >&2',
      echo: new PassThrough(),
    }).run({ ...task, sequence: 7 });
    expect(outcome.stderr).toBe('wb_1 apv_1 7 2026-11-27T10:00:00.000Z\n');
  });

  it('is ended with its worker, even when the worker is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'task-command-'));
    const pidFile = join(dir, 'command.pid');
    const module = JSON.stringify(new URL('./task-command.ts', import.meta.url).href);
    const script =
      `const { taskCommand } = await import(${module});` +
      `const { PassThrough } = await import('node:stream');` +
      `taskCommand({ command: 'echo $$ > ${pidFile}; exec sleep 60', echo: new PassThrough() }).run(${JSON.stringify(task)});`;
    const worker = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') await new Promise((resolve) => setTimeout(resolve, 50));
    const commandPid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(commandPid)).toBe(true);
    worker.kill('SIGKILL');
    // No deadline but the test's: however slow the machine, the command must end.
    while (alive(commandPid)) await new Promise((resolve) => setTimeout(resolve, 50));
  }, 60_000);

  it("does not hand the command the worker's key, unless the key is passed on", async () => {
    const script = `process.stderr.write(process.env.PRICING_KEY ?? 'no key');process.exit(1)`;
    const env = { ...process.env, PRICING_KEY: 'svc_live_WorkerKey' };
    const without = await taskCommand({ command: `${node} -e "${script}"`, echo: new PassThrough(), env }).run(task);
    expect(without.stderr).toBe('no key');
    const passed = await taskCommand({ command: `${node} -e "${script}"`, echo: new PassThrough(), env, passKey: 'svc_live_Passed' }).run(
      task,
    );
    expect(passed.stderr).toBe('svc_live_Passed');
  });

  it('starts from the environment it is given, less PRICING_KEY', () => {
    expect(commandEnvironment({ PATH: '/bin', PRICING_KEY: 'svc_live_x', PRICING_URL: 'http://h' })).toEqual({
      PATH: '/bin',
      PRICING_URL: 'http://h',
    });
    expect(commandEnvironment({ PATH: '/bin' }, 'svc_live_y')).toEqual({ PATH: '/bin', PRICING_KEY: 'svc_live_y' });
  });

  it("echoes the command's output with its control characters shown, its line ends kept, and its stderr as written for the ack", async () => {
    const echo = new PassThrough();
    let echoed = '';
    echo.on('data', (chunk: Buffer) => (echoed += chunk.toString('utf8')));
    const script = String.raw`process.stdout.write('out \u001b[31mred\n');process.stderr.write('err \u001b]0;title\u0007 é\n');process.exit(1)`;
    const outcome = await taskCommand({ command: `${node} -e "${script}"`, echo }).run(task);
    expect(echoed).toContain('out \\u001b[31mred\n');
    expect(echoed).toContain('err \\u001b]0;title\\u0007 é\n');
    expect(echoed).not.toContain('\u001b');
    expect(echoed).not.toContain('\u0007');
    expect(outcome.stderr).toBe('err \u001b]0;title\u0007 é\n');
  });
});
