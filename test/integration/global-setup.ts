// Starts the local stack (DynamoDB Local, the SQS emulator, the gateway) once for the whole integration run, and checks every answer of its gateway against the contract.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type LocalStackDescription, startLocalStack } from '#lib/local/stack.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { Contract } from './contract.ts';
import { registerPartitionsOf } from './partition-registry.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: LocalStackDescription;
    /** A stack.json for the admin CLI, as `npm start` writes one. */
    stackFile: string;
    /** Where a test asks which partitions a workspace has (see partition-registry.ts). */
    partitionRegistry: string;
  }
}

export default async function setup(project: TestProject) {
  // Handlers run in this process too (behind the gateway): keep their logs to warnings.
  process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
  // The admin CLI and the connector run as processes of their own, a few hundred times a run: Node's compile cache
  // (keyed by each file's content, so never stale) spares each the stripping and compiling of the same modules, a
  // fifth of the CPU of a file of CLI tests. The workers and every process they start inherit it.
  process.env.NODE_COMPILE_CACHE ??= join(projectRoot, 'node_modules', '.cache', 'node-compile-cache');
  const stateDir = mkdtempSync(join(tmpdir(), 'pricing-it-'));
  const contract = new Contract(projectRoot);
  // Webhook receivers in the tests listen on loopback, over http: the local-mode switch lets exactly those through.
  const stack = await startLocalStack({
    port: 0,
    stateDir,
    webhooks: { allowLoopbackHttp: true },
    onExchange: (exchange) => contract.check(exchange),
    tableKeysStream: true,
    timeoutScale: 10,
  });
  const { stop, ...description } = stack;
  const registry = await registerPartitionsOf(description);
  project.provide('stack', description);
  project.provide('stackFile', join(stateDir, 'stack.json'));
  project.provide('partitionRegistry', registry.url);
  return async () => {
    await registry.stop();
    await stop();
    rmSync(stateDir, { recursive: true, force: true });
    const wholeRun = await ranWholeProject(project);
    const report = contract.report({ enforceCoverage: wholeRun.whole });
    console.log(`\n${report.text}${wholeRun.whole ? '' : `\n(${wholeRun.why})`}`);
    // Thrown from the teardown, the failures fail the run, whichever client ignored the violation header.
    if (report.failures.length > 0) throw new Error(`the contract checks failed ${report.failures.length} times; the list is above`);
  };
}

/**
 * Whether every test of the integration project ran, the only run in which an unreached status means a missing test.
 * Read from the run itself rather than from a variable `npm test` would set: `npx vitest run --project integration`
 * is a whole run too, and a file or name filter makes any run partial, however it was started.
 */
async function ranWholeProject(project: TestProject): Promise<{ whole: boolean; why?: string }> {
  const { vitest } = project;
  if (vitest.config.testNamePattern) return { whole: false, why: `tests were filtered by name (${String(vitest.config.testNamePattern)})` };
  const ran = vitest.state.getTestModules().filter((module) => module.project.name === project.name);
  const ranIds = new Set(ran.map((module) => module.moduleId));
  const { testFiles } = await project.globTestFiles();
  const left = testFiles.filter((file) => !ranIds.has(file));
  if (left.length > 0) return { whole: false, why: `${left.length} of ${testFiles.length} integration test files did not run` };
  // Tests left out on purpose (.skip, .only, .todo); a test that failed, or skipped for its suite's failed hook, still counts.
  const leftOut = ran.flatMap((module) => [...module.children.allTests()]).filter((test) => test.options.mode !== 'run');
  if (leftOut.length > 0) return { whole: false, why: `${leftOut.length} integration tests were left out (.skip, .only or .todo)` };
  return { whole: true };
}
