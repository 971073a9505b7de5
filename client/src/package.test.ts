// The package's manifest: the version it publishes is the OpenAPI documents' version, and it installs as a package.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

describe('the client package', () => {
  it('has the version of the documents it is generated from', () => {
    const manifest = read('../package.json');
    for (const surface of ['api-v1', 'overview-v1']) expect(manifest.version).toBe(read(`../../openapi/${surface}.json`).info.version);
  });

  it('is publishable: not private, JavaScript and declarations by exports, openapi-fetch its own dependency', () => {
    const manifest = read('../package.json');
    expect(manifest.private).toBeUndefined();
    expect(manifest.exports['.']).toEqual({ types: './dist/client/src/index.d.ts', default: './dist/client/src/index.js' });
    expect(manifest.files).toContain('dist');
    expect(manifest.dependencies['openapi-fetch']).toBeDefined();
    expect(manifest.scripts.prepack).toBe('npm run build');
  });
});
