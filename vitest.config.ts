// Test projects: unit tests beside the domain, integration and console browser tests against the local stack, stack tests on the template.
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const unitFiles = ['shared/**/*.test.ts', 'lib/**/*.test.ts', 'client/**/*.test.ts', 'test/layout/**/*.test.ts'];

/**
 * The unit test files that replace a module (vi.mock): they run isolated, each with a module cache of its own, since a
 * module another file of the same worker imported first would ignore the replacement. Every other unit and stack
 * file shares its worker's modules with the files before it, which spares loading the SDK, the CDK and the domain
 * once per file: a third of those projects' CPU time. Found by reading the files, so that a new one is never left out.
 * Integration files stay isolated: each runs handlers of its own against the stack with an environment of its own.
 */
function filesReplacingModules(...folders: string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesReplacingModules(path);
      return entry.name.endsWith('.test.ts') && /\bvi\.(do)?[mM]ock\(/.test(readFileSync(path, 'utf8')) ? [path] : [];
    }),
  );
}
const replacingModules = filesReplacingModules('shared', 'lib', 'client', 'test/layout');

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    // An integration file spends about half its time waiting on the local stack (a drain, a lease, a poll): one worker
    // more than the cores keeps them busy. On two cores, three workers took the whole run from about 21 minutes to
    // about 13; four were no faster. Capped, so that a large machine does not bury the one DynamoDB Local.
    maxWorkers: Math.min(6, availableParallelism() + 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: unitFiles,
          exclude: [...configDefaults.exclude, ...replacingModules],
          isolate: false,
          // Hashing, type generation and child processes take seconds of CPU on a busy machine: no unit test is about speed.
          testTimeout: 30_000,
        },
      },
      { test: { name: 'unit-isolated', include: replacingModules, testTimeout: 30_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/console/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/environment.ts'],
          // Bounds for a test that hangs, not for speed: with the cores shared by three files at once, a test that takes
          // 10 s alone may take 30.
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      { test: { name: 'stack', include: ['test/stack/**/*.test.ts'], testTimeout: 120_000, isolate: false } },
    ],
  },
});
