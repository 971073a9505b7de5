// Unit tests of the reference page's files: where they are read from, what is served of Redoc, versions and encodings.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { preferredEncoding, readRouteFile, REDOC_LOGO_URL, referenceAsset, referenceAssets } from './assets.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('the reference files', () => {
  it('are read where the project keeps them when the package holds no copy, as when run from source', () => {
    expect(readRouteFile('reference/api-reference.js', 'shared/edge/reference/api-reference.js')).toEqual(
      readFileSync(resolve(root, 'shared/edge/reference/api-reference.js')),
    );
  });

  it('are Redoc and the page’s own script and styles, each at a URL under /docs/ that names a hash of its content', () => {
    expect([...referenceAssets().keys()].sort()).toEqual(['api-reference.css', 'api-reference.js', 'redoc.standalone.js']);
    for (const asset of referenceAssets().values()) {
      expect(asset.url).toBe(`/docs/${asset.name}?v=${asset.version}`);
      expect(asset.version).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(referenceAsset('api-reference.css').contentType).toBe('text/css; charset=utf-8');
    expect(referenceAsset('redoc.standalone.js').contentType).toBe('text/javascript; charset=utf-8');
  });

  it('serve Redoc as its bundle has it, but for the logo it would fetch from a CDN, which becomes an empty data URL', () => {
    const original = readFileSync(resolve(root, 'node_modules/redoc/bundles/redoc.standalone.js'), 'utf8');
    const served = referenceAsset('redoc.standalone.js').bytes.toString('utf8');
    // Once Redoc stops naming the logo, the rewrite has nothing left to do and can go.
    expect(original).toContain(REDOC_LOGO_URL);
    expect(served).not.toContain(REDOC_LOGO_URL);
    expect(served.replaceAll('data:,', REDOC_LOGO_URL)).toBe(original.replaceAll('data:,', REDOC_LOGO_URL));
  });

  it('compress each file once per encoding, to the same bytes once decoded', () => {
    const redoc = referenceAsset('redoc.standalone.js');
    expect(brotliDecompressSync(redoc.encoded('br'))).toEqual(redoc.bytes);
    expect(gunzipSync(redoc.encoded('gzip'))).toEqual(redoc.bytes);
    expect(redoc.encoded('br')).toBe(redoc.encoded('br'));
    expect(redoc.encoded('br').length).toBeLessThan(redoc.bytes.length / 3);
  });
});

describe('the encoding of an answer', () => {
  it.each([
    ['gzip, deflate, br, zstd', 'br'],
    ['br;q=0.1, gzip;q=1', 'br'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['*', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.0, gzip;q=0', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('for Accept-Encoding %j is %s', (header, encoding) => {
    expect(preferredEncoding(header)).toBe(encoding);
  });
});
