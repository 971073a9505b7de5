// Unit tests of the console's router: which page a path names, and how a form post is read.
import { describe, expect, it } from 'vitest';
import { html } from './html.ts';
import type { ConsolePage } from './page.ts';
import { matchPage, readForm } from './router.ts';

const page = (path: string): ConsolePage => ({ path, read: async () => ({ title: path, body: html`` }) });
const pages = [
  page('/console'),
  page('/console/recommendations/{sku}'),
  page('/console/recommendations/export'),
  page('/console/settings/api-keys'),
];

describe('the console router', () => {
  it('finds a page by its literal path before a pattern', () => {
    expect(matchPage(pages, '/console')?.page.path).toBe('/console');
    expect(matchPage(pages, '/console/recommendations/export')?.page.path).toBe('/console/recommendations/export');
    expect(matchPage(pages, '/console/settings/api-keys')?.params).toEqual({});
  });

  it('decodes path parameters, and finds nothing for a path no page has', () => {
    expect(matchPage(pages, '/console/recommendations/LAMP%20%231')).toEqual({
      page: pages[1],
      params: { sku: 'LAMP #1' },
    });
    expect(matchPage(pages, '/console/recommendations/a/b')).toBeUndefined();
    expect(matchPage(pages, '/console/nothing')).toBeUndefined();
    expect(matchPage(pages, '/console/recommendations/%E0%A4%A')).toBeUndefined();
  });

  it('reads url-encoded forms, repeated fields joined, and nothing else', () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
    expect(readForm({ headers, body: 'a=1&scopes=erp&scopes=connector&_csrf=t%2Bk', isBase64Encoded: false })).toEqual({
      a: '1',
      scopes: 'erp,connector',
      _csrf: 't+k',
    });
    expect(readForm({ headers, body: Buffer.from('x=y').toString('base64'), isBase64Encoded: true })).toEqual({ x: 'y' });
    expect(readForm({ headers: { 'content-type': 'application/json' }, body: '{"a":1}', isBase64Encoded: false })).toBeUndefined();
    expect(readForm({ headers, body: '__proto__=x', isBase64Encoded: false })?.__proto__).toBe('x');
  });
});
