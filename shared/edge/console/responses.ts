// What every console answer carries: the strict Content-Security-Policy and the other security headers, and the few kinds of answer there are.
import type { HttpResult } from '#edge/http/endpoint.ts';
import type { Html } from './html.ts';
import type { PageDownload } from './page.ts';

/**
 * Nothing but the service's own stylesheet and images: no script at all (the console needs none), no inline style,
 * forms posted only to the service, never framed.
 */
export const CONSOLE_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Pages show a workspace's data to one person: no cache, shared or private, keeps them. */
const pageHeaders = { ...securityHeaders, 'cache-control': 'no-store' };

export function htmlAnswer(statusCode: number, body: Html, requestId: string, cookies?: readonly string[]): HttpResult {
  return {
    statusCode,
    headers: { ...pageHeaders, 'content-type': 'text/html; charset=utf-8', 'x-request-id': requestId },
    body: body.text,
    ...(cookies?.length ? { cookies: [...cookies] } : {}),
  };
}

/** A page's file, saved by the browser under its name rather than shown; the page's own headers otherwise. */
export function downloadAnswer(file: PageDownload, requestId: string): HttpResult {
  // Anything but a plain name would let a page's data end the header or name a path.
  if (!/^[\w.-]+$/.test(file.filename)) throw new Error(`not a plain file name: ${JSON.stringify(file.filename)}`);
  return {
    statusCode: 200,
    headers: {
      ...pageHeaders,
      'content-type': file.contentType,
      'content-disposition': `attachment; filename="${file.filename}"`,
      'x-request-id': requestId,
    },
    body: file.body,
  };
}

/** 303 See Other: after a form post, the browser fetches the next page with GET. */
export function redirect(location: string, requestId: string, cookies?: readonly string[]): HttpResult {
  return {
    statusCode: 303,
    headers: { ...pageHeaders, location, 'x-request-id': requestId },
    body: '',
    ...(cookies?.length ? { cookies: [...cookies] } : {}),
  };
}

/**
 * Only a path of the console itself, never another site's address from a form or a query, and only of the printable
 * ASCII a Location header may carry: a line break or a character past Latin-1 would fail the answer itself.
 */
export function isConsoleLocation(location: string): boolean {
  return /^\/console(?:[/?][\x21-\x7e]*)?$/.test(location) && !location.includes('\\') && !location.startsWith('/console//');
}
