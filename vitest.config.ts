// Test projects: unit tests beside the domain, integration and console browser tests against the local stack, stack tests on the template.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

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
          include: ['shared/**/*.test.ts', 'lib/**/*.test.ts', 'client/**/*.test.ts', 'test/layout/**/*.test.ts'],
          // Hashing, type generation and child processes take seconds of CPU on a busy machine: no unit test is about speed.
          testTimeout: 30_000,
        },
      },
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
      { test: { name: 'stack', include: ['test/stack/**/*.test.ts'], testTimeout: 120_000 } },
    ],
  },
});
