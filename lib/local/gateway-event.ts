// The gateway's side of a request: an HTTP request as the API Gateway HTTP API (payload 2.0) event a handler is given.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LOCAL_ACCOUNT } from './lambda-context.ts';

/**
 * Sets a key of a map the handler receives as an own enumerable property, whatever its name: API Gateway sends JSON, in
 * which `__proto__` or `constructor` is a key like any other, whereas assigning `__proto__` to an object literal would
 * set its prototype and slip past a strict check of the keys.
 */
export function setOwn(map: Record<string, string>, name: string, value: string): void {
  Object.defineProperty(map, name, { value, enumerable: true, writable: true, configurable: true });
}

export function newRequestId(): string {
  return randomBytes(11).toString('base64');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's CLF-style request time: 12/Mar/2020:19:03:58 +0000. */
function requestTime(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/i;

export interface RawRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /**
   * The header lines as received, name and value in turn. When given they are read instead of `headers`, which
   * Node builds by rules of its own: it drops a `__proto__` line and some repeated headers, where API Gateway joins
   * every repeated header with commas.
   */
  readonly rawHeaders?: readonly string[];
  readonly body: Buffer;
  readonly sourceIp: string;
}

function splitCookies(line: string): string[] {
  return line.split(/;\s*/).filter(Boolean);
}

/** Lowercased headers, repeats joined with commas, and the cookies apart, as API Gateway hands them on. */
function readHeaders(raw: RawRequest): { headers: Record<string, string>; cookies: string[] | undefined } {
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  const add = (name: string, value: string) => {
    if (name === 'cookie') cookies = [...(cookies ?? []), ...splitCookies(value)];
    else setOwn(headers, name, Object.hasOwn(headers, name) ? `${headers[name]},${value}` : value);
  };
  if (raw.rawHeaders) {
    for (let index = 0; index + 1 < raw.rawHeaders.length; index += 2) {
      add((raw.rawHeaders[index] as string).toLowerCase(), raw.rawHeaders[index + 1] as string);
    }
  } else {
    for (const [name, value] of Object.entries(raw.headers)) {
      if (value === undefined) continue;
      for (const line of Array.isArray(value) ? value : [value]) add(name, line);
    }
  }
  return { headers, cookies };
}

/**
 * The path and query of a request line. A path that starts with `//` stays a path: read against a base URL it would
 * name a host, and route `//evil.example/api/v1/…` as `/api/v1/…`. Dot segments are resolved, as gateways do.
 */
export function requestTarget(target: string): { path: string; query: string } {
  const url = new URL(target.startsWith('/') ? `http://local${target}` : target, 'http://local');
  return { path: url.pathname, query: url.search.replace(/^\?/, '') };
}

/** The payload 2.0 event API Gateway would send for this request. */
export function buildEvent(
  raw: RawRequest,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  now = new Date(),
): APIGatewayProxyEventV2 {
  const target = requestTarget(raw.url);
  const { headers, cookies } = readHeaders(raw);
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(target.query)) {
    setOwn(query, name, Object.hasOwn(query, name) ? `${query[name]},${value}` : value);
  }
  const rawQueryString = target.query;
  const host = headers.host ?? 'localhost';
  const hasBody = raw.body.length > 0;
  const isText = TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const requestId = newRequestId();
  return {
    version: '2.0',
    routeKey,
    rawPath: target.path,
    rawQueryString,
    ...(cookies ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: query } : {}),
    ...(pathParameters && Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: raw.method,
        path: target.path,
        protocol: 'HTTP/1.1',
        sourceIp: raw.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    ...(hasBody ? { body: isText ? raw.body.toString('utf8') : raw.body.toString('base64') } : {}),
    isBase64Encoded: hasBody && !isText,
  };
}

/** Called with each answer before it is sent; returns headers to add to it. */
