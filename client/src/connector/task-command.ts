// Running a connector author's shell command for one write-back task: the task on stdin, its and its approval's ids and its sequence in the environment, the worker's key kept from it, its process group ended with the worker.
import { type ChildProcess, spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { printableOutput } from './terminal-text.ts';
import type { CommandOutcome, RunCommand, WritebackTask } from './writeback-worker.ts';

/** More than an ack keeps; enough that the start of a long stderr survives. */
const STDERR_KEPT = 64 * 1024;

export interface TaskCommandOptions {
  readonly command: string;
  /** Where the command's own stdout and stderr go, so that the worker's stdout stays its own lines. */
  readonly echo: NodeJS.WritableStream;
  /** The environment the command starts from, less the credential variables; the worker's own by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** The key the command gets in PRICING_KEY, only when the operator asks for it (`--pass-key`). */
  readonly passKey?: string;
}

/** Where the kit reads a credential from. A command runs the seller's code, and needs no key to apply a price. */
export const CREDENTIAL_VARIABLES: readonly string[] = ['PRICING_KEY'];

/** The environment a command sees: the one given, without a credential variable, and with the key only when passed. */
export function commandEnvironment(env: NodeJS.ProcessEnv, passKey?: string): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!CREDENTIAL_VARIABLES.includes(name)) kept[name] = value;
  if (passKey !== undefined) kept.PRICING_KEY = passKey;
  return kept;
}

/** Writes a child's stream to `echo` with its control characters shown; one decoder per stream keeps characters whole. */
function echoed(echo: NodeJS.WritableStream): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  return (chunk) => {
    const text = decoder.write(chunk);
    if (text) echo.write(printableOutput(text));
  };
}

export interface TaskCommand {
  readonly run: RunCommand;
  /** Signals every command still running, for a worker that exits without waiting for them. */
  terminate(signal?: NodeJS.Signals): void;
}

/**
 * The shell that leads each command's process group. A watchdog beside the command reads fd 3, the worker's end of
 * which closes only when the worker is gone, however it died (even SIGKILL): it then ends the whole group, so that
 * no command outlives its worker and applies a price nobody will ack. The command itself never sees fd 3.
 */
export const GROUP_LEADER = [
  // Set first, so that a signal that comes at once still takes the watchdog with it.
  'watchdog=',
  'trap \'[ -n "$watchdog" ] && kill -KILL "$watchdog" 2>/dev/null; exit 143\' TERM INT HUP',
  '( trap "" TERM; read -r _ <&3; kill -TERM 0; sleep 5; kill -KILL 0 ) </dev/null >/dev/null 2>&1 &',
  'watchdog=$!',
  '/bin/sh -c "$1" 3<&-',
  'status=$?',
  'kill -KILL "$watchdog" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** What the command finds in its environment about its task. */
export function taskVariables(task: WritebackTask): Record<string, string> {
  return {
    PRICING_TASK_ID: task.id,
    ...(task.approvalId === undefined ? {} : { PRICING_APPROVAL_ID: task.approvalId }),
    // An adapter keeps the highest it applied per SKU and refuses a lower one: an older price never replaces a newer.
    ...(typeof task.sequence === 'number' ? { PRICING_SEQUENCE: String(task.sequence) } : {}),
    PRICING_LEASE_UNTIL: task.leaseUntil,
  };
}

export function taskCommand({ command, echo, env = process.env, passKey }: TaskCommandOptions): TaskCommand {
  const environment = commandEnvironment(env, passKey);
  const running = new Set<ChildProcess>();
  const run = (task: WritebackTask) =>
    new Promise<CommandOutcome>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', GROUP_LEADER, 'pricing-task', command], {
        stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
        env: { ...environment, ...taskVariables(task) },
        // A group of its own, so that the Ctrl-C that asks the worker to stop does not also end the commands it waits for.
        detached: true,
      });
      running.add(child);
      let stderr = '';
      const echoOut = echoed(echo);
      const echoErr = echoed(echo);
      child.stdout.on('data', echoOut);
      child.stderr.on('data', (chunk: Buffer) => {
        echoErr(chunk);
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
      });
      // A command that never reads its stdin may exit before the task is written; that is its right.
      child.stdin?.on('error', () => undefined);
      child.stdin.end(`${JSON.stringify(task)}\n`);
      child.on('error', (error) => {
        running.delete(child);
        reject(error);
      });
      child.on('close', (code, signal) => {
        running.delete(child);
        resolve({ code, signal, stderr });
      });
    });
  return {
    run,
    terminate(signal = 'SIGTERM') {
      for (const child of running) {
        // The watchdog ignores the signal and holds its end of fd 3: closing ours lets it end whatever is left. Closed
        // whatever the signal finds, since a command told to stop as it starts has no group yet for the signal to reach.
        child.stdio[3]?.destroy();
        try {
          // The shell's whole group: the command may be a pipeline or a script with children of its own.
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // Gone, or its group not formed yet: the watchdog ends it.
        }
      }
    },
  };
}
