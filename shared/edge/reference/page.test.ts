// Unit tests of the reference page and its policy: nothing inline but what the nonce and the pinned hashes allow.
import { describe, expect, it } from 'vitest';
import { routeById } from '#edge/routes.ts';
import { referenceAsset } from './assets.ts';
import { pageHeaders, pagePolicy, REDOC_LOAD_STYLE_HASHES } from './headers.ts';
import { referencePage, referenceSurfaces } from './page.ts';

const NONCE = 'bm9uY2Utb2YtdGhlLXRlc3Q=';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((directive) => {
      const [name = '', ...values] = directive.trim().split(/\s+/);
      return [name, values] as const;
    }),
  );
}

describe('the reference page’s policy', () => {
  it('allows nothing by default, and scripts only from the service: no inline script and no eval', () => {
    const policy = directives(pagePolicy(NONCE));
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    for (const values of policy.values()) expect(values).not.toContain("'unsafe-eval'");
  });

  it('allows inline styles only by the answer’s nonce and the hashes of the two elements Redoc inserts as it loads', () => {
    expect(directives(pagePolicy(NONCE)).get('style-src')).toEqual([
      "'self'",
      `'nonce-${NONCE}'`,
      ...REDOC_LOAD_STYLE_HASHES.map((hash) => `'${hash}'`),
    ]);
  });

  it('lets the page fetch, show images and run workers from the service alone, and be framed by nothing', () => {
    const policy = directives(pagePolicy(NONCE));
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('worker-src')).toEqual(['blob:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
  });

  it('comes with nosniff, no referrer, and no caching of a page whose nonce is its own', () => {
    expect(pageHeaders(NONCE)).toEqual({
      'content-security-policy': pagePolicy(NONCE),
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });
});

describe('the reference page', () => {
  const html = referencePage(NONCE);

  it('has no inline script, no inline style and no event handler attribute', () => {
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('loads Redoc, then its own script, which alone carries the nonce to hand Redoc', () => {
    const scripts = [...html.matchAll(/<script src="([^"]+)"([^>]*)><\/script>/g)].map((match) => [match[1], match[2]?.trim()]);
    expect(scripts).toEqual([
      [referenceAsset('redoc.standalone.js').url, ''],
      [referenceAsset('api-reference.js').url, `nonce="${NONCE}"`],
    ]);
    expect(html.split(NONCE)).toHaveLength(2);
  });

  it('has a tab per surface, each pointing at the document its route serves', () => {
    const tabs = [...html.matchAll(/<a href="([^"]+)" data-surface="(\w+)"[^>]*data-document="([^"]+)"/g)].map((m) => m.slice(1));
    expect(tabs).toEqual([
      ['/docs', 'api', routeById('openapiV1').path],
      ['/docs?surface=overview', 'overview', routeById('openapiOverview').path],
    ]);
    expect(referenceSurfaces.map((surface) => surface.surface)).toEqual(['api', 'overview']);
  });

  it('escapes what it writes into attributes', () => {
    expect(referencePage('"><script>x</script>')).not.toContain('"><script>x');
  });
});
