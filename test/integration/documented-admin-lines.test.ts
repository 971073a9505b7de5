// Every admin line the README and the docs show, run as written against the local stack: each ends in an answer or in a clear error of its own, never in a usage error or a crash.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { adminLines } from '#test/support/documented-commands.ts';
import { admin } from './operator-cli.ts';
import { newWorkspace } from './support.ts';
import { stackFileOf, withTableHolding } from './table-of-its-own.ts';

// Each line starts the CLI afresh; on a busy machine a few take seconds each.
vi.setConfig({ testTimeout: 120_000 });

/** A line that names a deployed stack (`--aws`) runs against AWS, which a test does not reach: the layout test reads it. */
const runnable = adminLines.filter(({ args }) => !args.includes('--aws'));

/**
 * A line that scans and rewrites every workspace of the table (an upgrade's backfill) runs against a table of its own:
 * on the suite's shared table it would take minutes and rewrite what other tests are reading.
 */
const tableWide = (args: readonly string[]) =>
  !args.includes('--workspace') && ['key backfill-listings', 'listing backfill'].some((command) => args.join(' ').startsWith(command));

let workspaceId: string;

beforeAll(async () => {
  workspaceId = (await newWorkspace('Documented admin lines')).workspaceId;
});

describe('the admin lines the docs show, run as written', () => {
  it('runs dozens of them, the key created without a name among them, and the table-wide backfills on a table of their own', () => {
    expect(runnable.length).toBeGreaterThan(30);
    expect(runnable.filter(({ args }) => tableWide(args)).map(({ args }) => args.join(' '))).toEqual([
      'key backfill-listings --json',
      'listing backfill --json',
    ]);
    expect(runnable.map(({ args }) => args.join(' '))).toContain('key create --workspace ws_documented --family pw_live --json');
  });

  it.concurrent.each(runnable.map((documented) => [`${documented.where}: ${documented.args.join(' ')}`, documented] as const))(
    'runs %s to an answer or an error of its own',
    async (_, { args }) => {
      // The documented workspace is a real one; other ids stay as the docs write them, and may be unknown.
      const line = args.map((word) => (word === 'ws_documented' ? workspaceId : word));
      const result = tableWide(args)
        ? await withTableHolding({ workspaceIds: [workspaceId] }, (table) =>
            admin(line, 'a documented line on stdin\n', stackFileOf(table)),
          )
        : await admin(line, 'a documented line on stdin\n');
      expect(result.code, result.stderr).not.toBe(2);
      if (result.code !== 0) {
        expect(result.stderr.trim(), 'a failure says why').not.toBe('');
        expect(result.stderr, 'a failure is a message, not a stack trace').not.toMatch(/\n\s+at /);
      }
    },
  );
});
