// Runs the connector CLI as a person would, from the project root, with no key or URL but those a test gives it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { projectRoot } from '#lib/stack/project.ts';

const run = promisify(execFile);

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function connector(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/connector.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, PRICING_KEY: '', PRICING_URL: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as CliResult;
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
