// The OpenAPI documents and the reference page through the local gateway, and the page in a real headless Chromium: every operation shown, no policy violated, nothing loaded from elsewhere.
import { accessSync, constants, mkdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { call } from './support.ts';

const surfaces = [
  { tab: 'Service API', path: '/api/v1/openapi.json', file: 'openapi/api-v1.json', screenshot: 'api-reference.png' },
  { tab: 'Overview', path: '/v1/openapi.json', file: 'openapi/overview-v1.json', screenshot: 'api-reference-overview.png' },
] as const;

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly summary?: string;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function operationsOf(document: { paths?: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ method, path, ...(operation as { operationId?: string; summary?: string }) })),
  );
}

/** Chromium from CHROMIUM_PATH, /usr/bin/chromium or the PATH; never downloaded. */
function chromiumExecutable(): string {
  const names = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
  const candidates = [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    ...(process.env.PATH ?? '').split(delimiter).flatMap((folder) => names.map((name) => join(folder, name))),
  ].filter((candidate): candidate is string => Boolean(candidate));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not this one.
    }
  }
  throw new Error(
    'The API reference test needs Chromium and found none (tried CHROMIUM_PATH, /usr/bin/chromium and chromium on the PATH). ' +
      "Install Debian's package: sudo apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium or Chrome binary).",
  );
}

describe('the OpenAPI documents', () => {
  it.each(surfaces)('$path is served without a key as $file, with a request id and a cache header', async ({ path, file }) => {
    const response = await call(path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/.{8,}/);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.json).toEqual(JSON.parse(readFileSync(join(projectRoot, file), 'utf8')));
  });

  it('reads no key: a garbage Authorization header changes nothing of the answer', async () => {
    const plain = await call('/v1/openapi.json');
    const garbage = await call('/v1/openapi.json', { key: 'pw_live_not-a-key' });
    expect(garbage.status).toBe(200);
    expect(garbage.text).toBe(plain.text);
  });
});

describe('the reference page as served', () => {
  it('is HTML under a strict Content-Security-Policy, with no inline script and a fresh nonce each time', async () => {
    const [first, second] = [await call('/docs'), await call('/docs')];
    expect(first?.status).toBe(200);
    expect(first?.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(first?.headers.get('x-request-id')).toMatch(/.{8,}/);
    expect(first?.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first?.headers.get('referrer-policy')).toBe('no-referrer');
    expect(first?.headers.get('cache-control')).toBe('no-store');
    const policy = new Map(
      (first?.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).not.toContain("'unsafe-inline'");
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'none'"]);
    expect(first?.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\son\w+=|<style|\sstyle=/i);
    const nonceOf = (text = '') => /nonce="([^"]+)"/.exec(text)?.[1];
    expect(nonceOf(first?.text)).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(nonceOf(second?.text)).not.toBe(nonceOf(first?.text));
    expect(first?.headers.get('content-security-policy')).toContain(`'nonce-${nonceOf(first?.text)}'`);
  });

  it('loads Redoc and its own files from the service, each URL naming its content so that it may be kept for a year', async () => {
    const page = await call('/docs');
    const urls = [...page.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(urls.map((url) => url.replace(/\?.*/, '')).sort()).toEqual([
      '/docs/api-reference.css',
      '/docs/api-reference.js',
      '/docs/redoc.standalone.js',
    ]);
    for (const url of urls) {
      const response = await call(url, { headers: { 'accept-encoding': 'identity' } });
      expect(response.status, url).toBe(200);
      expect(response.headers.get('content-type'), url).toMatch(url.includes('.css') ? /^text\/css/ : /^text\/javascript/);
      expect(response.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options'), url).toBe('nosniff');
      // Without the hash it names, a URL may see another deploy's content: it is kept only for minutes.
      const unversioned = await call(url.replace(/\?.*/, ''), { headers: { 'accept-encoding': 'identity' } });
      expect(unversioned.headers.get('cache-control'), url).toBe('public, max-age=300');
      expect(unversioned.text, url).toBe(response.text);
    }
    const redoc = await call(urls.find((url) => url.includes('redoc')) ?? '', { headers: { 'accept-encoding': 'identity' } });
    expect(redoc.text).toContain('Redoc');
    expect(redoc.text).not.toContain('cdn.redoc.ly/redoc/logo');
  });

  it('sends Redoc compressed to a client that takes brotli or gzip, and the same bytes once decoded', async () => {
    const identity = await call('/docs/redoc.standalone.js', { headers: { 'accept-encoding': 'identity' } });
    expect(identity.headers.get('content-encoding')).toBeNull();
    for (const encoding of ['br', 'gzip']) {
      // fetch decodes the body and keeps the header, so the two bodies compare as text.
      const compressed = await call('/docs/redoc.standalone.js', { headers: { 'accept-encoding': encoding } });
      expect(compressed.headers.get('content-encoding')).toBe(encoding);
      expect(compressed.headers.get('vary')).toBe('accept-encoding');
      expect(compressed.text === identity.text, encoding).toBe(true);
    }
  });

  it('answers a name that is not one of its files with 404 in the v1 envelope', async () => {
    const response = await call('/docs/package.json');
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', param: 'asset', requestId: response.headers.get('x-request-id') });
  });
});

describe('the reference page in Chromium', () => {
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  /** A context that refuses, and remembers, every request for another host, and reports each policy violation. */
  async function isolatedContext(outside: string[], violations: string[]): Promise<BrowserContext> {
    // Launched here rather than in a hook, so that a machine without Chromium fails this test with the way to install it.
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(60_000);
    const gateway = new URL(inject('stack').gatewayUrl);
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.host === gateway.host) return route.continue();
      outside.push(url.href);
      return route.abort();
    });
    await context.exposeFunction('reportViolation', (violation: string) => violations.push(violation));
    // Browser-side code as text: the project's types are Node's, without the DOM's.
    await context.addInitScript({
      content: `document.addEventListener('securitypolicyviolation', (event) =>
        window.reportViolation(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ' ' + event.sample));`,
    });
    return context;
  }

  it('renders every operation of both documents, under its policy, loading nothing from outside the local host', async () => {
    const outside: string[] = [];
    const requested: string[] = [];
    const violations: string[] = [];
    const pageErrors: string[] = [];
    const context = await isolatedContext(outside, violations);
    const page = await context.newPage();
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      // Chromium reports a violation on the console too, workers' included, which the page's event does not see.
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    const outputDir = join(projectRoot, 'test-results');
    mkdirSync(outputDir, { recursive: true });

    for (const [index, surface] of surfaces.entries()) {
      if (index === 0) await page.goto(`${inject('stack').gatewayUrl}/docs`);
      else await page.getByRole('link', { name: new RegExp(surface.tab) }).click();
      await page.waitForSelector('#reference[data-state]');
      expect(await page.getAttribute('#reference', 'data-state')).toBe('ready');
      expect(await page.getAttribute('#reference', 'data-document')).toBe(surface.path);
      expect(await page.getAttribute(`a[data-document="${surface.path}"]`, 'aria-current')).toBe('page');

      const openapi = JSON.parse(readFileSync(join(projectRoot, surface.file), 'utf8'));
      await page.getByRole('heading', { name: openapi.info.title }).first().waitFor();
      const shown = (await page.evaluate(`({
        text: document.body.textContent,
        sections: [...document.querySelectorAll('[data-section-id]')].map((element) => element.getAttribute('data-section-id')),
      })`)) as { text: string; sections: string[] };
      // Each operation by all the document gives it: its section (Redoc's anchor is its operationId), its summary, or
      // failing both its path.
      const missing = operationsOf(openapi).flatMap(({ method, path, operationId, summary }) => [
        ...(operationId && !shown.sections.includes(`operation/${operationId}`) ? [`section operation/${operationId}`] : []),
        ...(summary && !shown.text.includes(summary) ? [`summary "${summary}"`] : []),
        ...(!operationId && !summary && !shown.text.includes(path) ? [`path ${method.toUpperCase()} ${path}`] : []),
      ]);
      expect(missing).toEqual([]);

      // Redoc's search runs in a worker it builds from a blob, which the policy has to allow.
      const words = operationsOf(openapi).flatMap((operation) => operation.summary?.match(/[A-Za-z]{4,}/g) ?? []);
      const term = words.sort((a, b) => b.length - a.length)[0];
      if (term) {
        await page.getByPlaceholder('Search...').fill(term);
        await page.locator('[data-role="search:results"] li').first().waitFor();
        await page.getByPlaceholder('Search...').fill('');
      }
      await page.screenshot({ path: join(outputDir, surface.screenshot), fullPage: true });
    }

    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(outside).toEqual([]);
    const host = new URL(inject('stack').gatewayUrl).host;
    expect(requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).host !== host)).toEqual([]);
  }, 180_000);
});
