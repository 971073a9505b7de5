// The local HTTP gateway: turns HTTP requests into API Gateway HTTP API (payload 2.0) events for the route table's handlers.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type AnyHandler, loadHandler } from './handlers.ts';
import { FunctionTimeout, invokeWithTimeout, LOCAL_ACCOUNT, type LocalFunction } from './lambda-context.ts';

export interface GatewayRoute extends LocalFunction {
  readonly method: string;
  readonly path: string;
  readonly entry: string;
}

export interface GatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: readonly GatewayRoute[];
  /** Serves what no route claims, as the `$default` route does. */
  readonly fallback: LocalFunction & { readonly entry: string };
  /** Defaults to importing the entry module; tests and benchmarks may hand in their own. */
  readonly load?: (entry: string) => Promise<AnyHandler>;
}

export interface Gateway {
  readonly url: string;
  stop(): Promise<void>;
}

/** API Gateway's own limit on an HTTP API request body. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

interface CompiledRoute {
  readonly route: GatewayRoute;
  readonly routeKey: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(route: GatewayRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([^}+]+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, routeKey: `${route.method} ${route.path}`, pattern: new RegExp(`^${source}$`), names };
}

export function matchRoute(compiled: readonly CompiledRoute[], method: string, path: string) {
  for (const candidate of compiled) {
    if (candidate.route.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    candidate.names.forEach((name, index) => {
      pathParameters[name] = decodeURIComponent(match[index + 1] ?? '');
    });
    return { candidate, pathParameters };
  }
  return undefined;
}

/** API Gateway's request ids are 11 random bytes in base64, e.g. "JKJaXmPLvHcESHA=". */
function newRequestId(): string {
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
  readonly body: Buffer;
  readonly sourceIp: string;
}

/** The payload 2.0 event API Gateway would send for this request. */
export function buildEvent(
  raw: RawRequest,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  now = new Date(),
): APIGatewayProxyEventV2 {
  const url = new URL(raw.url, 'http://local');
  const headers: Record<string, string> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value === undefined) continue;
    if (name === 'cookie') {
      cookies = (Array.isArray(value) ? value : [value]).flatMap((line) => line.split(/;\s*/)).filter(Boolean);
      continue;
    }
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const rawQueryString = url.search.replace(/^\?/, '');
  const host = headers.host ?? 'localhost';
  const hasBody = raw.body.length > 0;
  const isText = TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
  const requestId = newRequestId();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
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
        path: url.pathname,
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

function send(res: ServerResponse, status: number, headers: Record<string, string | string[]>, body: Buffer | string): void {
  res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** As API Gateway does: a structured result is used as given; anything else is a 200 JSON body. */
function writeResult(res: ServerResponse, result: unknown, requestId: string): void {
  const base = { 'apigw-requestid': requestId };
  const structured = result !== null && typeof result === 'object' && 'statusCode' in result;
  if (!structured) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    send(res, 200, { ...base, 'content-type': 'application/json' }, body);
    return;
  }
  const reply = result as APIGatewayProxyStructuredResultV2;
  const headers: Record<string, string | string[]> = { ...base };
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (reply.cookies?.length) headers['set-cookie'] = reply.cookies;
  const body = reply.body === undefined ? '' : reply.isBase64Encoded ? Buffer.from(reply.body, 'base64') : reply.body;
  send(res, reply.statusCode ?? 200, headers, body);
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const load = options.load ?? loadHandler;
  const compiled = options.routes.map(compile);
  const fallback = options.fallback;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (body === undefined) {
      send(res, 413, { 'content-type': 'application/json' }, '{"message":"Request Entity Too Large"}');
      return;
    }
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    const matched = matchRoute(compiled, method, path);
    const fn: LocalFunction & { entry: string } = matched ? matched.candidate.route : fallback;
    const event = buildEvent(
      {
        method,
        url: req.url ?? '/',
        headers: req.headers,
        body,
        sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
      },
      matched ? matched.candidate.routeKey : '$default',
      matched?.pathParameters,
    );
    const requestId = event.requestContext.requestId;
    try {
      const handler = await load(fn.entry);
      writeResult(res, await invokeWithTimeout(fn, handler, event), requestId);
    } catch (error) {
      // API Gateway's own answers when the integration fails: the function's error never reaches the caller.
      if (error instanceof FunctionTimeout) {
        send(res, 503, { 'content-type': 'application/json', 'apigw-requestid': requestId }, '{"message":"Service Unavailable"}');
      } else {
        console.error(`[gateway] ${fn.name} failed:`, error);
        send(res, 500, { 'content-type': 'application/json', 'apigw-requestid': requestId }, '{"message":"Internal Server Error"}');
      }
    }
  }

  const server: Server = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      console.error('[gateway] request failed:', error);
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
