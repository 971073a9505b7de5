// Unit tests of the console's router: which page a path names, and how a form post is read.
import { describe, expect, it } from 'vitest';
import { html } from './html.ts';
import type { ConsolePage } from './page.ts';
import { isConsoleLocation } from './responses.ts';
import { malformedIdField, matchPage, readForm } from './router.ts';

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

describe('the console’s ids and addresses', () => {
  it('take a form field named as an id only in the shape of the service’s ids, or empty', () => {
    expect(malformedIdField({ keyId: 'key_0123456789ABCDEFGHIJab', connectorId: '' })).toBeUndefined();
    expect(malformedIdField({ eventId: 'evt_0123456789ABCDEFGHIJab', email: 'x'.repeat(5000) })).toBeUndefined();
    expect(malformedIdField({ keyId: `key_${'x'.repeat(3000)}` })).toBe('keyId');
    expect(malformedIdField({ eventId: 'evt_../../0123456789ABCDEF' })).toBe('eventId');
    expect(malformedIdField({ endpointId: ' we_0123456789ABCDEFGHIJab' })).toBe('endpointId');
  });

  it('lead only to console paths of printable ASCII', () => {
    expect(isConsoleLocation('/console')).toBe(true);
    expect(isConsoleLocation('/console/cost?period=2026-11')).toBe(true);
    expect(isConsoleLocation('/console/recommendations/A%20B')).toBe(true);
    for (const bad of [
      '/console/x\nSet-Cookie: a=b',
      '/console/€',
      '/console/\u2028',
      '/console x',
      '//evil.example/console',
      '/consoleevil',
      '/console/\\evil',
    ]) {
      expect(isConsoleLocation(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
