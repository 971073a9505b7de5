// Where the project lives on disk: route-table entries and cdk.json are resolved from here, whatever the working directory.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** With a trailing slash, so that `${projectRoot}${entry}` is a path. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The feature flags and settings in cdk.json, for apps built in-process (tests, benchmarks) as the CLI builds them. */
export function cdkJsonContext(): Record<string, unknown> {
  const { context } = JSON.parse(readFileSync(`${projectRoot}cdk.json`, 'utf8')) as { context: Record<string, unknown> };
  return context;
}
