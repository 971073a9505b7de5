// The command lines the README and the docs show, held as written: every admin line is read and checked as a run would check it, and every npm script they name exists.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { prepareCommandLine } from '#lib/admin/cli.ts';
import { projectRoot } from '#lib/stack/project.ts';

/** Where operators and connector authors copy command lines from. */
const documents = [
  'README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The lines of a document's code blocks, a line continued with `\` joined to the next. */
function codeLines(document: string): string[] {
  const lines: string[] = [];
  let inBlock = false;
  let pending = '';
  for (const line of readFileSync(join(projectRoot, document), 'utf8').split('\n')) {
    if (line.trimStart().startsWith('```')) {
      inBlock = !inBlock;
      continue;
    }
    if (!inBlock) continue;
    const text = pending + line.trim();
    if (text.endsWith('\\')) {
      pending = `${text.slice(0, -1).trim()} `;
      continue;
    }
    pending = '';
    lines.push(text);
  }
  return lines;
}

/** Shell words: quoted strings kept whole, a comment and a redirection from a file dropped. */
function words(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(/'([^']*)'|"([^"]*)"|(#.*$)|(<[^<>]*>)|(<\s*\S+)|(\S+)/g)) {
    if (match[3] !== undefined) break;
    if (match[5] !== undefined) continue;
    found.push(match[1] ?? match[2] ?? match[4] ?? match[6] ?? '');
  }
  return found;
}

/** Placeholders the docs write for ids and values a reader fills in, each with a value of the form the command takes. */
const placeholders: [RegExp, string][] = [
  [/^ws_…$|^W$/, 'ws_documented'],
  [/^con_…$/, 'con_documented'],
  [/^key_\w*…$/, 'key_documented'],
  [/^we_…$/, 'we_documented'],
  [/^evt_…$/, 'evt_documented'],
  [/^pd_…$/, 'pd_documented'],
  [/^[0-9a-f]+…$/, '5b0c2d6e-94a1-4f7e-9a55-2f1c7b8e1d00'],
  [/^[0-9a-f]+-…$/, '8590f31e-6c2d-4f1b-8f5e-0d7a3c9e4b21'],
  [/^\$R$/, 'pricing-restored'],
  [/^<\w+ output>$/, 'https://sqs.eu-west-1.amazonaws.com/123456789012/queue'],
];

function filled(word: string): string {
  return placeholders.find(([pattern]) => pattern.test(word))?.[1] ?? word;
}

/**
 * A documented line as the command lines it stands for: `[--opt value]` is written out, and each alternative of
 * `a|b` is a line of its own, so that every form the docs offer is held.
 */
function expansions(args: readonly string[]): string[][] {
  const index = args.findIndex((word) => /^\[?[^|]+\|/.test(word) && !word.startsWith('{'));
  const plain = args.map((word) => word.replace(/^\[|\]$/g, ''));
  if (index < 0) return [plain.map(filled)];
  const [, open = '', body = '', close = ''] = /^(\[?)(.*?)(\]?)$/.exec(args[index] as string) ?? [];
  return body.split('|').flatMap((choice) => expansions([...args.slice(0, index), `${open}${choice}${close}`, ...args.slice(index + 1)]));
}

interface Documented {
  readonly where: string;
  readonly line: string;
  readonly args: string[];
}

const adminLines: Documented[] = documents.flatMap((where) =>
  codeLines(where).flatMap((line) => {
    const command = /npm run (?:--silent )?admin -- (.*)$/.exec(line)?.[1];
    if (command === undefined || command.startsWith('<command>') || command.trim() === '…') return [];
    return expansions(words(command)).map((args) => ({ where, line, args }));
  }),
);

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
