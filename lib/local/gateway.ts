// The local HTTP gateway: turns HTTP requests into API Gateway HTTP API (payload 2.0) events for the route table's handlers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { pathPattern } from '#edge/routes/rows.ts';
import { type AnyHandler, loadHandler } from './handlers.ts';
import { FunctionTimeout, invokeWithTimeout, type LocalFunction } from './lambda-context.ts';
import { buildEvent, newRequestId, requestTarget, setOwn } from './gateway-event.ts';

// How a request becomes an event lives in gateway-event.ts; importers of the gateway find it here too.
export { buildEvent, type RawRequest, requestTarget } from './gateway-event.ts';

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
  /**
   * Tests only: sees every answer the gateway sends, before it is sent. A violation it returns travels back to the
   * caller in the CONTRACT_VIOLATION_HEADER, so that the test that caused it fails, whichever process it runs in.
   */
  readonly onExchange?: (exchange: GatewayExchange) => void | { readonly violation: string };
}

/** One request and the answer the gateway is about to send for it. */
export interface GatewayExchange {
  readonly method: string;
  readonly path: string;
  /** The route key that served it, `$default` for the fallback route. */
  readonly routeKey: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Buffer;
}

/** Set on an answer only when an `onExchange` hook found it breaks the contract; no deployed gateway sends it. */
export const CONTRACT_VIOLATION_HEADER = 'x-contract-violation';

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
  // The route table's own matcher: the fallback function finds a path's methods (405 and Allow) with it too.
  const { pattern, names } = pathPattern(route.path);
  return { route, routeKey: `${route.method} ${route.path}`, pattern, names };
}

/** A malformed escape (`%E0%A4%A`) is left as it came, so the route's handler refuses it in its own envelope. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function matchRoute(compiled: readonly CompiledRoute[], method: string, path: string): ReturnType<typeof matchMethod> {
  const matched = matchMethod(compiled, method, path);
  // A HEAD is served by the GET row's function wherever no row is HEAD's own, under a route key of its own, as the stack does.
  if (matched || method !== 'HEAD') return matched;
  const asGet = matchMethod(compiled, 'GET', path);
  return asGet && { ...asGet, candidate: { ...asGet.candidate, routeKey: `HEAD ${asGet.candidate.route.path}` } };
}

function matchMethod(compiled: readonly CompiledRoute[], method: string, path: string) {
  for (const candidate of compiled) {
    if (candidate.route.method !== method) continue;
    const match = candidate.pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    candidate.names.forEach((name, index) => setOwn(pathParameters, name, decodeSegment(match[index + 1] ?? '')));
    return { candidate, pathParameters };
  }
  return undefined;
}

/** API Gateway's request ids are 11 random bytes in base64, e.g. "JKJaXmPLvHcESHA=". */
type Observe = (status: number, headers: Record<string, string | string[]>, body: Buffer | string) => Record<string, string>;

function send(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Buffer | string,
  observe?: Observe,
): void {
  res.writeHead(status, { ...headers, ...observe?.(status, headers, body), 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The hook's verdict as a header. A hook that throws is a verdict too: the answer is sent all the same, and the
 * caller learns why its answer could not be judged. Header values are printable ASCII; a long reason is cut.
 */
function exchangeObserver(
  onExchange: NonNullable<GatewayOptions['onExchange']>,
  request: Pick<GatewayExchange, 'method' | 'path' | 'routeKey'>,
): Observe {
  return (status, headers, body): Record<string, string> => {
    let violation: string | undefined;
    try {
      violation = onExchange({ ...request, status, headers, body: Buffer.from(body) })?.violation;
    } catch (error) {
      violation = `the contract check failed: ${(error as Error).message}`;
    }
    if (violation === undefined) return {};
    const printable = violation.replace(/[^\x20-\x7e]/g, '?');
    return { [CONTRACT_VIOLATION_HEADER]: printable.length > 2000 ? `${printable.slice(0, 2000)}...` : printable };
  };
}

/** As API Gateway does: a structured result is used as given; anything else is a 200 JSON body. */
function writeResult(res: ServerResponse, result: unknown, requestId: string, observe?: Observe): void {
  const base = { 'apigw-requestid': requestId };
  const structured = result !== null && typeof result === 'object' && 'statusCode' in result;
  if (!structured) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    send(res, 200, { ...base, 'content-type': 'application/json' }, body, observe);
    return;
  }
  const reply = result as APIGatewayProxyStructuredResultV2;
  const headers: Record<string, string | string[]> = { ...base };
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (reply.cookies?.length) headers['set-cookie'] = reply.cookies;
  const body = reply.body === undefined ? '' : reply.isBase64Encoded ? Buffer.from(reply.body, 'base64') : reply.body;
  send(res, reply.statusCode ?? 200, headers, body, observe);
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

/** What serving a request needs: the routes, the function for what none matches, how a handler is loaded, and the hook. */
interface Routing {
  readonly compiled: readonly CompiledRoute[];
  readonly fallback: GatewayOptions['fallback'];
  readonly load: NonNullable<GatewayOptions['load']>;
  readonly onExchange: GatewayOptions['onExchange'];
}

/** API Gateway's own answers when the integration fails: the function's error never reaches the caller. */
function answerFailure(res: ServerResponse, error: unknown, name: string, requestId: string, observe: Observe | undefined): void {
  if (error instanceof FunctionTimeout) {
    const ids = { 'apigw-requestid': requestId, 'x-request-id': requestId };
    send(res, 503, { 'content-type': 'application/json', ...ids }, '{"message":"Service Unavailable"}', observe);
  } else {
    console.error(`[gateway] ${name} failed:`, error);
    send(
      res,
      500,
      { 'content-type': 'application/json', 'apigw-requestid': requestId, 'x-request-id': requestId },
      '{"message":"Internal Server Error"}',
      observe,
    );
  }
}

async function serve(routing: Routing, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { compiled, fallback, load } = routing;
  // Routed before the body is read, so that a hook sees which route even an over-large request was aimed at.
  const method = req.method ?? 'GET';
  const { path } = requestTarget(req.url ?? '/');
  const matched = matchRoute(compiled, method, path);
  const observe =
    routing.onExchange &&
    exchangeObserver(routing.onExchange, { method, path, routeKey: matched ? matched.candidate.routeKey : '$default' });
  const body = await readBody(req);
  if (body === undefined) {
    // The gateway's own answer carries the request's id too, as every answer of the service does.
    const tooLarge = newRequestId();
    const ids = { 'apigw-requestid': tooLarge, 'x-request-id': tooLarge };
    send(res, 413, { 'content-type': 'application/json', ...ids }, '{"message":"Request Entity Too Large"}', observe);
    return;
  }
  const fn: LocalFunction & { entry: string } = matched ? matched.candidate.route : fallback;
  const event = buildEvent(
    {
      method,
      url: req.url ?? '/',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body,
      sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
    },
    matched ? matched.candidate.routeKey : '$default',
    matched?.pathParameters,
  );
  const requestId = event.requestContext.requestId;
  try {
    const handler = await load(fn.entry);
    writeResult(res, await invokeWithTimeout(fn, handler, event), requestId, observe);
  } catch (error) {
    answerFailure(res, error, fn.name, requestId, observe);
  }
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const routing: Routing = {
    compiled: options.routes.map(compile),
    fallback: options.fallback,
    load: options.load ?? loadHandler,
    onExchange: options.onExchange,
  };
  const server: Server = createServer((req, res) => {
    serve(routing, req, res).catch((error: unknown) => {
      console.error('[gateway] request failed:', error);
      if (!res.headersSent) send(res, 500, { 'content-type': 'application/json' }, '{"message":"Internal Server Error"}');
    });
  });
  // Idle connections are kept a minute, as API Gateway's are: a client reuses one until a second or two before the
  // time this server announces, and on a busy machine a short timeout let a reused connection close under a request.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
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
