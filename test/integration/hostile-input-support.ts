// What the hostile-input suite shares: requests sent byte for byte over a socket, the judgement of each answer, a
// workspace's items before and after, and the count of hostile requests tried per endpoint.
import { isDeepStrictEqual } from 'node:util';
import { connect } from 'node:net';
import { inject } from 'vitest';
import { CONTRACT_VIOLATION_HEADER } from '#lib/local/gateway.ts';
import { errorStatuses, overviewOnlyErrorCodes } from '#platform/errors.ts';
import { fallbackRoute, routeKey, routes } from '#edge/routes.ts';
import { readWorkspaceItems } from './workspace-items.ts';

/** The tally's name for the `$default` route, which answers every path no route claims. */
export const FALLBACK = `fallback (${fallbackRoute.id})`;

/** A route of the table by its id, as the tally names it: "POST /api/v1/prices". */
export function endpointOf(id: (typeof routes)[number]['id']): string {
  const route = routes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`no route ${id}`);
  return routeKey(route);
}

/** What a hostile request may be answered with besides a 4xx in its surface's envelope. */
export type Outcome =
  /** A 4xx in the envelope; or, when `outside` is given, that status from the gateway itself, without the envelope. */
  | { readonly refused: true; readonly outside?: readonly number[] }
  /** Input the contract takes as plain data or ignores: this answer, exactly (the JSON body when given). */
  | { readonly answered: number; readonly json?: unknown };

export const REFUSED: Outcome = { refused: true };

export interface HostileRequest {
  /** Which endpoint the request is counted under: a route key, or FALLBACK. */
  readonly endpoint: string;
  /** What is hostile about it, for the report of a failure. */
  readonly label: string;
  readonly method: string;
  /** The request target, sent as it is: no normalisation, no encoding. */
  readonly target: string;
  /** Undefined sends the probe's bearer key; null sends no Authorization header; an array sends the header repeated. */
  readonly authorization?: string | readonly string[] | null;
  /** Content-Type when there is a body: application/json unless given; null sends none. */
  readonly contentType?: string | null;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Buffer;
  readonly outcome?: Outcome;
}

/** Who sends a group's requests: a key of the right family and scope, and the workspace it acts in. */
export interface Probe {
  readonly workspaceId: string;
  readonly key: string;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are inspected field by field.
  readonly json: any;
}

function headerLines(request: HostileRequest, probe: Probe, host: string): Array<[string, string]> {
  const lines: Array<[string, string]> = [['Host', host]];
  const authorization = request.authorization === undefined ? `Bearer ${probe.key}` : request.authorization;
  if (typeof authorization === 'string') lines.push(['Authorization', authorization]);
  else if (authorization) for (const value of authorization) lines.push(['Authorization', value]);
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  if (body !== undefined && request.contentType !== null) lines.push(['Content-Type', request.contentType ?? 'application/json']);
  for (const [name, value] of request.headers ?? []) lines.push([name, value]);
  if (body !== undefined || request.method !== 'GET') lines.push(['Content-Length', String(body?.length ?? 0)]);
  lines.push(['Connection', 'close']);
  return lines;
}

function parseResponse(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
  if (!status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = data.subarray(end + 4);
  const length = Number(headers['content-length']);
  if (Number.isInteger(length) && length >= 0) body = body.subarray(0, length);
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(status), headers, text, json };
}

/**
 * Sends one request over its own connection, exactly as built: fetch and node:http normalise dot segments, refuse
 * control characters in headers and send no body with GET, all of which a hostile client may do.
 */
export function send(request: HostileRequest, probe: Probe): Promise<RawResponse> {
  const { hostname, port } = new URL(inject('stack').gatewayUrl);
  const host = `${hostname}:${port}`;
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headerLines(request, probe, host)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let failure: Error | undefined;
    socket.setTimeout(60_000, () => socket.destroy(new Error('no answer within 60 s')));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A server that answers before reading the whole request (a header too large) resets a socket still writing.
    socket.on('error', (error) => {
      failure = error;
    });
    socket.on('close', () => {
      const response = parseResponse(Buffer.concat(chunks));
      if (response) resolve(response);
      else reject(failure ?? new Error('the connection closed without an answer'));
    });
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'utf8'));
      if (body !== undefined && body.length > 0) socket.write(body);
    });
  });
}

// Counting: every hostile request sent, by the endpoint it was aimed at.
const tally = new Map<string, number>();

/** The least hostile requests each route that takes input is tried with. */
export const MIN_TRIED_PER_ROUTE = 30;

/**
 * Routes whose hostile cases are in a file of their own, which checks their count itself: each test file counts in a
 * module of its own, so the main suite's coverage check cannot see them.
 */
export const triedInOwnFile: Readonly<Record<string, string>> = {
  listBatches: 'hostile-batches.test.ts',
  cancelBatch: 'hostile-batches.test.ts',
};

export function triedPerEndpoint(): ReadonlyMap<string, number> {
  return tally;
}

export function tallyTable(): string {
  const rows = [...routes.map((route) => routeKey(route)), FALLBACK].map((endpoint) => [endpoint, tally.get(endpoint) ?? 0] as const);
  const extra = [...tally].filter(([endpoint]) => !rows.some(([known]) => known === endpoint));
  const all = [...rows, ...extra];
  const width = Math.max(...all.map(([endpoint]) => endpoint.length), 'endpoint'.length);
  const total = all.reduce((sum, [, count]) => sum + count, 0);
  const line = (name: string, count: number | string) => `${name.padEnd(width)}  ${String(count).padStart(5)}`;
  return [
    line('endpoint', 'tried'),
    '-'.repeat(width + 7),
    ...all.map(([name, count]) => line(name, count)),
    '-'.repeat(width + 7),
    line('total', total),
  ].join('\n');
}

// Judging an answer.

/** What no answer may carry: traces, paths, the SDK's and the runtime's own words. */
const LEAKS: ReadonlyArray<readonly [string, RegExp]> = [
  ['a stack trace', /\bat [^\s()]+ \(|\n\s+at |:\d+:\d+\)/],
  ['a file path', /\/work\/|\.ts:|\.js:\d|node_modules|file:\/\//],
  [
    'AWS error text',
    /ValidationException|DynamoDB|ConditionalCheckFailed|AttributeValue|TransactionCanceled|ResourceNotFound|ProvisionedThroughput/,
  ],
  [
    'a runtime error',
    /TypeError|RangeError|SyntaxError|ReferenceError|Maximum call stack|Unexpected token|JSON\.parse|is not a function|of undefined/,
  ],
];

/** Longer than any message the service writes for itself; longer means it echoes the caller's text at length. */
export const MAX_MESSAGE_LENGTH = 1024;

const overviewOnlyCodes = new Set<string>(overviewOnlyErrorCodes);

function expectedStatus(code: string, surface: 'v1' | 'overview'): number[] {
  if (surface === 'overview') {
    if (code === 'invalid_json' || code === 'invalid_request' || code === 'internal_error') return [];
    if (code === 'server_error') return [500];
  } else if (overviewOnlyCodes.has(code)) return [];
  const status = (errorStatuses as Record<string, number>)[code];
  if (status === undefined) return [];
  // The contract answers an unknown route with 404 invalid_request; a wrong method with 405, a body not JSON with 415.
  if (surface === 'v1' && code === 'invalid_request') return [status, 404, 405, 415];
  return surface === 'overview' && code === 'bad_request' ? [status, 405, 415] : [status];
}

/** The surface whose envelope a path is answered in: the overview's under /v1/, v1's everywhere else. */
export function surfaceOf(target: string): 'v1' | 'overview' {
  // Parsed after an origin, so that `//x/…` stays a path; dot segments are resolved, as every gateway does.
  const path = new URL(`http://local${target.startsWith('/') ? '' : '/'}${target.split('?')[0] ?? ''}`).pathname;
  return path.startsWith('/v1/') ? 'overview' : 'v1';
}

function excerpt(text: string, length = 300): string {
  const flat = JSON.stringify(text.length > length ? `${text.slice(0, length)}…(${text.length} chars)` : text);
  return flat.slice(1, -1);
}

function describeRequest(request: HostileRequest): string {
  const target = request.target.length > 160 ? `${request.target.slice(0, 160)}…(${request.target.length} chars)` : request.target;
  return `[${request.endpoint}] ${request.label}: ${request.method} ${target}`;
}

/** The secrets a request carried that no answer may repeat: the bearer key, and any long garbage sent as one. */
function secretsOf(request: HostileRequest, probe: Probe): string[] {
  const values =
    request.authorization === undefined ? [`Bearer ${probe.key}`] : request.authorization === null ? [] : [request.authorization].flat();
  const secrets = new Set<string>([probe.key]);
  for (const value of values) {
    const credential = value.replace(/^\s*\S+\s+/, '').trim();
    if (credential.length >= 16) secrets.add(credential);
  }
  return [...secrets];
}

/** Everything wrong with one answer; empty when it is as it should be. */
export function judge(request: HostileRequest, probe: Probe, response: RawResponse): string[] {
  const problems: string[] = [];
  const outcome = request.outcome ?? REFUSED;
  const everything = `${Object.entries(response.headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')}\n${response.text}`;
  for (const [what, pattern] of LEAKS) if (pattern.test(response.text)) problems.push(`leaks ${what}`);
  for (const secret of secretsOf(request, probe)) if (everything.includes(secret)) problems.push('echoes the bearer credential');

  if ('answered' in outcome) {
    if (response.status !== outcome.answered)
      problems.push(`answered ${response.status}, not ${outcome.answered} as without the hostile part`);
    else if (outcome.json !== undefined && !isDeepStrictEqual(response.json, outcome.json)) {
      problems.push(`answered ${excerpt(JSON.stringify(response.json), 200)}, not ${excerpt(JSON.stringify(outcome.json), 200)}`);
    }
    return problems;
  }

  if (response.status < 400 || response.status > 499) problems.push(`answered ${response.status}, not a 4xx`);
  const error = response.json?.error;
  const enveloped = error !== null && typeof error === 'object' && Object.keys(response.json).length === 1;
  if (!enveloped) {
    if (!outcome.outside?.includes(response.status)) problems.push('answered outside the error envelope');
    return problems;
  }
  const surface = surfaceOf(request.target);
  const idField = surface === 'overview' ? 'request_id' : 'requestId';
  const allowed = surface === 'overview' ? ['code', 'message', 'request_id'] : ['code', 'message', 'param', 'requestId'];
  const unexpected = Object.keys(error).filter((field) => !allowed.includes(field));
  if (unexpected.length > 0) problems.push(`not the ${surface} envelope: it has ${unexpected.join(', ')}`);
  if (typeof error.code !== 'string' || !expectedStatus(error.code, surface).includes(response.status)) {
    problems.push(`code ${JSON.stringify(error.code)} is not a ${surface} code answered with ${response.status}`);
  }
  if (typeof error.message !== 'string' || error.message.trim() === '') problems.push('has no message');
  else if (error.message.length > MAX_MESSAGE_LENGTH) problems.push(`message of ${error.message.length} characters echoes the input`);
  if ('param' in error && (typeof error.param !== 'string' || error.param === ''))
    problems.push('has a param that is not a non-empty string');
  const requestId: unknown = error[idField];
  if (typeof requestId !== 'string' || requestId === '') problems.push(`has no ${idField}`);
  const header = response.headers['x-request-id'];
  if (header !== undefined && header !== requestId) problems.push(`${idField} ${String(requestId)} is not x-request-id ${header}`);
  return problems;
}

// A workspace's items, before and after.

export type Item = Record<string, unknown>;

/**
 * Every item of the workspace, its own item included, but its usage (rate window and month), which each request counts
 * in, its cost ledger, which each request is charged to, and the last use stamped on a key's listing, which a request
 * may write whatever it answers.
 */
export async function workspaceItems(workspaceId: string): Promise<Map<string, Item>> {
  const items = new Map<string, Item>();
  for (const item of await readWorkspaceItems(workspaceId)) {
    if (String(item.PK).startsWith(`WS#${workspaceId}#USAGE#`) || item.PK === `WS#${workspaceId}#COST`) continue;
    const { lastUsedAt: _lastUse, ...kept } = item;
    items.set(`${String(item.PK)} | ${String(item.SK)}`, item.type === 'apiKeyListing' ? kept : item);
  }
  return items;
}

/** Added, removed and changed items, by key; empty when nothing was written. */
export function writesBetween(before: ReadonlyMap<string, Item>, after: ReadonlyMap<string, Item>): string[] {
  const writes: string[] = [];
  for (const [key, item] of after) {
    const earlier = before.get(key);
    if (earlier === undefined) writes.push(`added ${key}: ${excerpt(JSON.stringify(item), 200)}`);
    else if (!isDeepStrictEqual(earlier, item)) writes.push(`changed ${key}: ${excerpt(JSON.stringify(item), 200)}`);
  }
  for (const key of before.keys()) if (!after.has(key)) writes.push(`removed ${key}`);
  return writes;
}

// Sending a group.

const CONCURRENCY = 4;

async function sendAll(requests: readonly HostileRequest[], probe: Probe): Promise<string[]> {
  const problems: string[][] = requests.map(() => []);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < requests.length; index = next++) {
      const request = requests[index] as HostileRequest;
      tally.set(request.endpoint, (tally.get(request.endpoint) ?? 0) + 1);
      try {
        const response = await send(request, probe);
        const found = judge(request, probe, response);
        // The shared gateway's verdict on the answer against the OpenAPI documents (support.ts explains the header).
        const violation = response.headers[CONTRACT_VIOLATION_HEADER];
        if (violation) found.push(`breaks the OpenAPI contract: ${violation}`);
        if (found.length > 0) {
          problems[index] = [`${describeRequest(request)} → ${response.status} ${excerpt(response.text)}: ${found.join('; ')}`];
        }
      } catch (error) {
        problems[index] = [`${describeRequest(request)} → no answer: ${(error as Error).message}`];
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return problems.flat();
}

/**
 * Sends every request, a few at a time, and returns what went wrong: each answer that is not as its outcome says, and
 * every item of the probe's workspace that changed between before and after.
 */
export async function tryAll(probe: Probe, requests: readonly HostileRequest[]): Promise<{ problems: string[]; writes: string[] }> {
  const before = await workspaceItems(probe.workspaceId);
  const problems = await sendAll(requests, probe);
  const after = await workspaceItems(probe.workspaceId);
  return { problems, writes: writesBetween(before, after) };
}
