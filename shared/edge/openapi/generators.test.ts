// The committed documents give the right types in two common generators at their default settings: openapi-typescript and @hey-api/openapi-ts.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
/** By path, not imported: a root devDependency run as its command, as a connector author runs it. */
const heyApi = join(repo, 'node_modules/@hey-api/openapi-ts/bin/run.js');
const surfaces = ['api-v1', 'overview-v1'] as const;

interface Schema {
  readonly type?: string;
  readonly properties?: Record<string, Schema>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
}

function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? 1 : 0, output: `${stdout}${stderr}` });
    });
  });
}

const isFreeForm = (schema: Schema) => schema.type === 'object' && !schema.properties && schema.additionalProperties === true;
const ANY_VALUES = `{ colour: 'red', sizes: [1, 2.5], nested: { deep: [true, null, 'x'] } }`;

/**
 * Lines that compile only if the type `typeOf(name)` of each named schema has every property the document requires
 * required, every other one optional (a default included), and takes any values where the document is free-form.
 */
function assertions(document: { components: { schemas: Record<string, Schema> } }, typeOf: (name: string) => string): string[] {
  const lines: string[] = [];
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    if (isFreeForm(schema)) lines.push(`takes(${ANY_VALUES} satisfies ${typeOf(name)});`);
    for (const [property, propertySchema] of Object.entries(schema.properties ?? {})) {
      const required = schema.required?.includes(property) ?? false;
      lines.push(`optional<${typeOf(name)}, '${property}'>(${!required});`);
      if (isFreeForm(propertySchema)) lines.push(`takes(${ANY_VALUES} satisfies ${typeOf(name)}['${property}']);`);
    }
  }
  return lines;
}

const PRELUDE = `
type Optional<T, K extends keyof T> = {} extends Pick<T, K> ? true : false;
declare function optional<T, K extends keyof T>(expected: Optional<T, K>): void;
declare function takes(value: unknown): void;
`;

describe('types generated from the documents with default settings', () => {
  let directory: string;
  const documents = Object.fromEntries(
    surfaces.map((surface) => [surface, JSON.parse(readFileSync(join(repo, `openapi/${surface}.json`), 'utf8'))]),
  );

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'pricing-generated-types-'));
    await writeFile(join(directory, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('make the fields with a default optional, the required ones required, and free-form objects take any values', async () => {
    const program = [PRELUDE];
    for (const surface of surfaces) {
      const source = new URL(`../../../openapi/${surface}.json`, import.meta.url);
      await writeFile(join(directory, `${surface}.openapi-typescript.ts`), astToString(await openapiTS(source)));
      const generated = await run(process.execPath, [heyApi, '-s', '--no-log-file', '-i', fileURLToPath(source), '-o', `${surface}.hey-api`], directory);
      expect(generated.code, `@hey-api/openapi-ts failed (is it installed from the root devDependencies?):\n${generated.output}`).toBe(0);

      const alias = surface.replace('-', '_');
      program.push(`import type { components as ${alias}_ot } from './${surface}.openapi-typescript.ts';`);
      program.push(`import type * as ${alias}_hey from './${surface}.hey-api/types.gen.ts';`);
      program.push(...assertions(documents[surface], (name) => `${alias}_ot['schemas']['${name}']`));
      program.push(...assertions(documents[surface], (name) => `${alias}_hey.${name}`));
    }
    // Each check is known to bite: a required field said optional, a field with a default said required.
    program.push(`// @ts-expect-error limit may be left out of a claim`);
    program.push(`optional<api_v1_ot['schemas']['ClaimRequest'], 'limit'>(false);`);
    program.push(`// @ts-expect-error a claim's answer always has its tasks`);
    program.push(`optional<api_v1_hey.ClaimResponse, 'tasks'>(true);`);
    program.push(`const claim: api_v1_ot['schemas']['ClaimRequest'] = {};`, `const heyClaim: api_v1_hey.ClaimRequest = {};`);
    program.push(`takes([claim, heyClaim]);`);
    await writeFile(join(directory, 'program.ts'), program.join('\n'));

    const options = ['--strict', '--exactOptionalPropertyTypes', '--noEmit', '--module', 'nodenext', '--target', 'es2024'];
    const checked = await run(process.execPath, [tsc, ...options, '--allowImportingTsExtensions', 'program.ts'], directory);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
  }, 300_000);
});
