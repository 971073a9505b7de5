// Every admin line the README and the docs show, run as written against the local stack: each ends in an answer or in a clear error of its own, never in a usage error or a crash.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { adminLines } from '#test/support/documented-commands.ts';
import { admin } from './operator-cli.ts';
import { newWorkspace } from './support.ts';

// Each line starts the CLI afresh; on a busy machine a few take seconds each.
vi.setConfig({ testTimeout: 120_000 });

/** A line that names a deployed stack (`--aws`) runs against AWS, which a test does not reach: the layout test reads it. */
const runnable = adminLines.filter(({ args }) => !args.includes('--aws'));

let workspaceId: string;

beforeAll(async () => {
  workspaceId = (await newWorkspace('Documented admin lines')).workspaceId;
});

describe('the admin lines the docs show, run as written', () => {
  it('runs dozens of them, the key created without a name among them', () => {
    expect(runnable.length).toBeGreaterThan(30);
    expect(runnable.map(({ args }) => args.join(' '))).toContain('key create --workspace ws_documented --family pw_live --json');
  });

  it.concurrent.each(runnable.map((documented) => [`${documented.where}: ${documented.args.join(' ')}`, documented] as const))(
    'runs %s to an answer or an error of its own',
    async (_, { args }) => {
      // The documented workspace is a real one; other ids stay as the docs write them, and may be unknown.
      const result = await admin(
        args.map((word) => (word === 'ws_documented' ? workspaceId : word)),
        'a documented line on stdin\n',
      );
      expect(result.code, result.stderr).not.toBe(2);
      if (result.code !== 0) {
        expect(result.stderr.trim(), 'a failure says why').not.toBe('');
        expect(result.stderr, 'a failure is a message, not a stack trace').not.toMatch(/\n\s+at /);
      }
    },
  );
});
