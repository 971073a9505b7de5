// The command lines the README and the docs show, read out of their code blocks: which documents, which lines, and the
// placeholders a reader fills in, for the tests that check and run them as written.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '#lib/stack/project.ts';

/** Where operators and connector authors copy command lines from. */
export const documents = [
  'README.md',
  ...readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The lines of a document's code blocks, a line continued with `\` joined to the next. */
export function codeLines(document: string): string[] {
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

export interface Documented {
  readonly where: string;
  readonly line: string;
  readonly args: string[];
}

export const adminLines: Documented[] = documents.flatMap((where) =>
  codeLines(where).flatMap((line) => {
    const command = /npm run (?:--silent )?admin -- (.*)$/.exec(line)?.[1];
    if (command === undefined || command.startsWith('<command>') || command.trim() === '…') return [];
    return expansions(words(command)).map((args) => ({ where, line, args }));
  }),
);
