// Starts the local stack (DynamoDB Local, the SQS emulator, the gateway) once for the whole integration run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type LocalStackDescription, startLocalStack } from '../../lib/local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: LocalStackDescription;
    /** A stack.json for the admin CLI, as `npm start` writes one. */
    stackFile: string;
  }
}

export default async function setup(project: TestProject) {
  // Handlers run in this process too (behind the gateway): keep their logs to warnings.
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  const stateDir = mkdtempSync(join(tmpdir(), 'pricing-it-'));
  const stack = await startLocalStack({ port: 0, stateDir });
  const { stop, ...description } = stack;
  project.provide('stack', description);
  project.provide('stackFile', join(stateDir, 'stack.json'));
  return async () => {
    await stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
}
