import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordedTableNames, unrecordedTableWarning } from './table-cut-over.ts';

describe('the table a cut-over names', () => {
  it('is read from cdk.json’s context and from cdk.context.json, wherever the checkout records it', () => {
    const root = `${mkdtempSync(join(tmpdir(), 'cut-over-'))}/`;
    expect(recordedTableNames(root)).toEqual([]);
    writeFileSync(`${root}cdk.json`, JSON.stringify({ app: 'x', context: { table: 'Restored-1' } }));
    writeFileSync(`${root}cdk.context.json`, JSON.stringify({ table: 'Restored-2' }));
    expect(recordedTableNames(root)).toEqual(['Restored-1', 'Restored-2']);
  });

  it('warns only when a named table is recorded nowhere', () => {
    expect(unrecordedTableWarning(undefined, [])).toBeUndefined();
    expect(unrecordedTableWarning('Restored-1', ['Restored-1'])).toBeUndefined();
    expect(unrecordedTableWarning('Restored-1', ['Restored-0'])).toMatch(/a new, empty table/);
  });
});
