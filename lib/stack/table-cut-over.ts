// The guard on a stack cut over to an existing table: the option must be where every later deploy reads it, or that deploy points the service at a new, empty table.
import { existsSync, readFileSync } from 'node:fs';
import { projectRoot } from './project.ts';

/** The `table` values of the context files every synth of this checkout reads: cdk.json, then cdk.context.json. */
export function recordedTableNames(root = projectRoot): string[] {
  return ['cdk.json', 'cdk.context.json'].flatMap((file) => {
    const path = `${root}${file}`;
    if (!existsSync(path)) return [];
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { context?: Record<string, unknown>; table?: unknown };
    const value = file === 'cdk.json' ? parsed.context?.table : parsed.table;
    return typeof value === 'string' && value !== '' ? [value] : [];
  });
}

/**
 * What to tell the operator who deploys with `-c table=<name>` that no context file of the checkout records: the next
 * deploy without the option would bring the stack's own table back, new and empty, and point every function at it.
 * Undefined when the name is recorded, or no existing table is named.
 */
export function unrecordedTableWarning(given: string | undefined, recorded: readonly string[]): string | undefined {
  if (given === undefined || given === '' || recorded.includes(given)) return undefined;
  return (
    `This stack is pointed at the existing table ${given} by -c table=, which no context file of this checkout records. ` +
    'A later deploy without the option would create a new, empty table and point every function at it. Record it now: ' +
    `add "table": "${given}" to the "context" of cdk.json (or to cdk.context.json), commit it, and deploy from there ` +
    '(docs/operations.md, "Restoring the table to a point in time").'
  );
}
