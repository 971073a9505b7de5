// Keeps the committed types in step with the committed OpenAPI documents.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { render, surfaces, typesPath } from '../scripts/generate.ts';

describe('the generated types', () => {
  it.each(surfaces)('in src/%s.d.ts are what openapi-typescript makes of the committed document', async (surface) => {
    const committed = readFileSync(typesPath(surface), 'utf8');
    const fresh = await render(surface);
    expect(committed === fresh, `src/${surface}.d.ts is stale: run \`npm --prefix client run generate\``).toBe(true);
  });
});
