// The house limits on size: no source file over 350 lines and no function over 60, in every folder of code, as the lint rule holds shared/ and functions/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';

const folders = ['shared', 'functions', 'bin', 'lib', 'client/src'];
const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 60;

/** Files the limits do not apply to, each for a reason of its own: generated code and data tables are not read as code. */
const excepted: Readonly<Record<string, string>> = {
  'client/src/api-v1.d.ts': 'generated from openapi/api-v1.json by client/scripts/generate.ts',
  'client/src/overview-v1.d.ts': 'generated from openapi/overview-v1.json by client/scripts/generate.ts',
  'shared/platform/table/access-patterns.ts': 'the access-pattern catalogue: a data table, one entry per pattern',
};

/**
 * Files still over the limits when the check came in. Each must shrink, and leave this list when it does (the last
 * test fails on a file listed here that is within the limits): the list only ever gets shorter.
 */
const stillOver: Readonly<Record<string, string>> = {};

function sourceFiles(folder: string): string[] {
  return readdirSync(join(projectRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(projectRoot, join(entry.parentPath, entry.name)));
}

const linter = new Linter({ configType: 'flat' });
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    // No comment in a file can lift a limit for it: exceptions are named here.
    linterOptions: { noInlineConfig: true },
    languageOptions: { parser: tseslint.parser as Linter.Parser },
    rules: {
      'max-lines': ['error', { max: MAX_FILE_LINES }],
      'max-lines-per-function': ['error', { max: MAX_FUNCTION_LINES, IIFEs: true }],
    },
  },
];

/** Each file over a limit, with what is over (`file:line message`), as the lint rules word it. */
function findings(files: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of files) {
    const messages = linter
      .verify(readFileSync(join(projectRoot, file), 'utf8'), config, { filename: file })
      .filter((message) => message.fatal === true || message.ruleId === 'max-lines' || message.ruleId === 'max-lines-per-function');
    if (messages.length > 0)
      found.set(
        file,
        messages.map((message) => `${file}:${message.line} ${message.message}`),
      );
  }
  return found;
}

const checked = folders.flatMap(sourceFiles).filter((file) => !(file in excepted));
const over = findings(checked);

describe('the size of the code', () => {
  it('has no file over 350 lines and no function over 60 outside the files listed', () => {
    expect([...over].filter(([file]) => !(file in stillOver)).flatMap(([, messages]) => messages)).toEqual([]);
  });

  it('sees the folders it checks', () => {
    for (const folder of folders)
      expect(
        checked.some((file) => file.startsWith(`${folder}/`)),
        folder,
      ).toBe(true);
  });

  it('excepts only files that exist', () => {
    expect(Object.keys(excepted).filter((file) => !existsSync(join(projectRoot, file)))).toEqual([]);
  });

  it('lists as still over only files that are still over the limits', () => {
    expect(Object.keys(stillOver).filter((file) => !over.has(file))).toEqual([]);
  });
});
