// Test projects: unit tests beside the domain, integration and console browser tests against the local stack, stack tests on the template.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
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
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      { test: { name: 'stack', include: ['test/stack/**/*.test.ts'], testTimeout: 120_000 } },
    ],
  },
});
