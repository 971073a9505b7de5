// The command lines the README and the docs show, held as written: every admin line is read and checked as a run would check it, and every npm script they name exists.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { prepareCommandLine } from '#lib/admin/cli.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { adminLines, documents } from '#test/support/documented-commands.ts';

const scripts = Object.keys((JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { scripts: object }).scripts);

describe('the command lines the docs show', () => {
  it('finds the admin lines of the README and the operations guide, the key created without a name among them', () => {
    const where = new Set(adminLines.map((documented) => documented.where));
    expect(where).toContain('README.md');
    expect(where).toContain('docs/operations.md');
    expect(adminLines.length).toBeGreaterThan(40);
    expect(adminLines.map(({ args }) => args.join(' '))).toContain('key create --workspace ws_documented --family pw_live --json');
  });

  it.each(adminLines.map((documented) => [`${documented.where}: ${documented.args.join(' ')}`, documented] as const))(
    'reads and checks %s as running it would',
    async (_, { args }) => {
      // What the docs pipe in (a password, a key) is read as the command is prepared: a line stands in for it.
      const stdin = Object.getOwnPropertyDescriptor(process, 'stdin') as PropertyDescriptor;
      Object.defineProperty(process, 'stdin', { configurable: true, value: Readable.from([Buffer.from('a documented line on stdin\n')]) });
      try {
        await expect(prepareCommandLine(args)).resolves.toBeUndefined();
      } finally {
        Object.defineProperty(process, 'stdin', stdin);
      }
    },
  );

  it('names only npm scripts that exist', () => {
    const named = documents.flatMap((where) =>
      [...readFileSync(join(projectRoot, where), 'utf8').matchAll(/npm run (?:--silent )?([a-z][\w:-]*)/g)].map((match) => ({
        where,
        script: match[1] as string,
      })),
    );
    expect(named.length).toBeGreaterThan(0);
    for (const { where, script } of named) expect(scripts, `${where} names npm run ${script}`).toContain(script);
  });
});
