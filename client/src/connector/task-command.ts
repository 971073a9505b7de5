// Running a connector author's shell command for one write-back task: the task on stdin, its id in the environment.
import { type ChildProcess, spawn } from 'node:child_process';
import type { CommandOutcome, RunCommand, WritebackTask } from './writeback-worker.ts';

/** More than an ack keeps; enough that the start of a long stderr survives. */
const STDERR_KEPT = 64 * 1024;

export interface TaskCommandOptions {
  readonly command: string;
  /** Where the command's own stdout and stderr go, so that the worker's stdout stays its own lines. */
  readonly echo: NodeJS.WritableStream;
  readonly env?: NodeJS.ProcessEnv;
}

export interface TaskCommand {
  readonly run: RunCommand;
  /** Signals every command still running, for a worker that exits without waiting for them. */
  terminate(signal?: NodeJS.Signals): void;
}

export function taskCommand({ command, echo, env = process.env }: TaskCommandOptions): TaskCommand {
  const running = new Set<ChildProcess>();
  const run = (task: WritebackTask) =>
    new Promise<CommandOutcome>((resolve, reject) => {
      const child = spawn(command, {
        shell: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...env, PRICING_TASK_ID: task.id },
        // A group of its own, so that the Ctrl-C that asks the worker to stop does not also end the commands it waits for.
        detached: true,
      });
      running.add(child);
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => echo.write(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        echo.write(chunk);
        if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
      });
      // A command that never reads its stdin may exit before the task is written; that is its right.
      child.stdin.on('error', () => undefined);
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
        try {
          // The shell's whole group: the command may be a pipeline or a script with children of its own.
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // Already gone.
        }
      }
    },
  };
}
