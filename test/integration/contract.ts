// The contract checks of the integration run: each answer of the shared gateway judged against the OpenAPI document of its surface, counted, and the coverage of every documented status.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { GatewayExchange } from '#lib/local/gateway.ts';

/** The two documents, and which answers each one judges: the overview's under /v1/, as the fallback route splits them. */
export const contractDocuments = [
  { name: 'api-v1', file: 'openapi/api-v1.json', owns: (path: string) => !path.startsWith('/v1/') },
  { name: 'overview-v1', file: 'openapi/overview-v1.json', owns: (path: string) => path.startsWith('/v1/') },
] as const;

/** Served beside the API for people (the reference pages, the console), and described by neither document. */
function isOutsideTheContract(path: string): boolean {
  return path === '/docs' || path.startsWith('/docs/') || path === '/console' || path.startsWith('/console/');
}

/**
 * Documented statuses that no test of the integration run can reach through the shared gateway, each with why. The
 * run's coverage check skips them; one that a test does reach, or that no document lists, fails the check, so that
 * the list never outlives its reasons. `*` stands for every operation of both documents.
 */
export const unreachable: ReadonlyArray<{ readonly operation: string; readonly status: string; readonly reason: string }> = [
  {
    operation: '*',
    status: '500',
    reason:
      'only a fault produces it (an exception no handler expects, a table that fails); envelope.test.ts and gateway-event.test.ts ' +
      'provoke both kinds on gateways of their own, with handlers built to fail',
  },
  {
    operation: '*',
    status: '503',
    reason:
      'only a function that outlives its timeout produces it, which no handler does on a test’s input; local-timeouts.test.ts ' +
      'and gateway-event.test.ts provoke it on gateways of their own, with handlers built to be late',
  },
];

/** The operation that answers what no route claims, as the coverage table names it. */
export const UNKNOWN_ROUTE = 'unknown route';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;

interface CompiledResponse {
  /** As the document writes it: `200`, `4XX` or `default`. */
  readonly key: string;
  readonly where: string;
  readonly requiredHeaders: readonly string[];
  readonly headerChecks: ReadonlyMap<string, ValidateFunction>;
  /** By media type; undefined when the document gives the response no content. */
  readonly content: ReadonlyMap<string, ValidateFunction | undefined> | undefined;
}

interface CompiledOperation {
  readonly document: string;
  /** `POST /api/v1/prices`, the path as the gateway sees it, or UNKNOWN_ROUTE. */
  readonly name: string;
  readonly method: string;
  /** The path template with its parameters' names erased, to compare with a route key whatever they are called. */
  readonly shape: string;
  readonly responses: ReadonlyMap<string, CompiledResponse>;
}

interface Tally {
  readonly document: string;
  readonly operation: string;
  readonly status: number;
  /** The documented response it was judged against, when there is one. */
  readonly key: string | undefined;
  count: number;
}

export interface ContractReport {
  /** The counts table, and the coverage and violations in words. */
  readonly text: string;
  /** What fails the run: violations, documents that could not be read, and gaps in coverage when it is enforced. */
  readonly failures: readonly string[];
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${escapePointer(segment)}`).join('');
}

/** A JSON pointer as a URI fragment, as ajv reads a `$ref`. */
function fragmentOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${encodeURIComponent(escapePointer(segment))}`).join('');
}

function shapeOf(template: string): string {
  return template.replace(/\{[^}]*\}/g, '{}');
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  const described = (errors ?? []).slice(0, 3).map((error) => {
    const extra =
      'additionalProperty' in error.params
        ? ` (${String(error.params.additionalProperty)})`
        : 'allowedValues' in error.params
          ? ` (${JSON.stringify(error.params.allowedValues)})`
          : '';
    return `${error.instancePath || '/'} ${error.message ?? 'is invalid'}${extra}`;
  });
  const more = (errors?.length ?? 0) > 3 ? `, and ${(errors?.length ?? 0) - 3} more` : '';
  return `${described.join('; ')}${more}`;
}

function cut(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function headerValue(headers: GatewayExchange['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** The documented media type an answer's Content-Type falls under: exact, then `type/*`, then `*\/*`. */
function mediaTypeFor(documented: Iterable<string>, contentType: string): string | undefined {
  const keys = [...documented];
  const [type] = contentType.split('/');
  return (
    keys.find((key) => key.toLowerCase() === contentType) ?? keys.find((key) => key === `${type}/*`) ?? keys.find((key) => key === '*/*')
  );
}

/** The documented response a status falls under: its own, then its class (`4XX`), then `default`. */
function responseFor(responses: ReadonlyMap<string, CompiledResponse>, status: number): CompiledResponse | undefined {
  const range = `${String(status).charAt(0)}XX`;
  return (
    responses.get(String(status)) ??
    [...responses.values()].find((response) => response.key.toUpperCase() === range) ??
    responses.get('default')
  );
}

export class Contract {
  /** Documents that could not be read or compiled: the contract could not be checked where they speak. */
  private readonly problems: string[] = [];
  /** The schema compiler's own warnings about a document, such as a format it does not know. */
  private readonly notes = new Set<string>();
  private readonly operations: CompiledOperation[] = [];
  private readonly documents = new Set<string>();
  private readonly tallies = new Map<string, Tally>();
  private readonly violations = new Map<string, number>();
  private skipped = 0;

  /** Reads and compiles both documents once; what cannot be read is remembered, and fails the run at its end. */
  constructor(root: string) {
    const logger = {
      log: () => undefined,
      warn: (...args: unknown[]) => this.notes.add(args.map(String).join(' ')),
      error: () => undefined,
    };
    // Documents describe; they do not follow ajv's strict style rules, which would refuse valid schemas.
    const bodies = new Ajv2020({ strict: false, allErrors: true, logger });
    // A header is text on the wire: an integer header is read as one.
    const headers = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true, logger });
    for (const ajv of [bodies, headers]) {
      addFormats.default(ajv);
      ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
    }
    for (const { name, file } of contractDocuments) {
      const path = join(root, file);
      if (!existsSync(path)) {
        this.problems.push(`${file} is missing (npm run openapi writes it): no answer of its surface was checked`);
        continue;
      }
      let document: Json;
      try {
        document = JSON.parse(readFileSync(path, 'utf8')) as Json;
      } catch (error) {
        this.problems.push(`${file} is not JSON: ${(error as Error).message}`);
        continue;
      }
      const id = `https://contract.local/${name}.json`;
      bodies.addSchema(document, id);
      headers.addSchema(document, id);
      this.documents.add(name);
      this.compileDocument(name, file, id, document, bodies, headers);
    }
  }

  private compileDocument(name: string, file: string, id: string, document: Json, bodies: Ajv2020, headers: Ajv2020): void {
    const resolve = (value: unknown, at: readonly string[]): { value: Json; at: readonly string[] } => {
      let current = { value: value as Json, at };
      for (let hops = 0; typeof current.value?.$ref === 'string' && hops < 10; hops++) {
        const ref = current.value.$ref as string;
        if (!ref.startsWith('#/')) throw new Error(`${file}#${pointerOf(current.at)}: $ref ${ref} is not local`);
        const segments = ref
          .slice(2)
          .split('/')
          .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
        let target: unknown = document;
        for (const segment of segments) target = (target as Json | undefined)?.[segment];
        if (target === undefined) throw new Error(`${file}#${pointerOf(current.at)}: $ref ${ref} names nothing`);
        current = { value: target as Json, at: segments };
      }
      return current;
    };
    const compileAt = (ajv: Ajv2020, at: readonly string[], wrap?: 'value'): ValidateFunction => {
      const ref = { $ref: `${id}#${fragmentOf(at)}` };
      return ajv.compile(wrap ? { type: 'object', properties: { [wrap]: ref } } : ref);
    };
    const basePath = (servers: unknown): string => {
      const url = (servers as Array<{ url?: string }> | undefined)?.[0]?.url;
      if (!url) return '';
      return new URL(url, 'http://server.local').pathname.replace(/\/$/, '');
    };
    const compileResponses = (responses: unknown, at: readonly string[]): Map<string, CompiledResponse> => {
      const compiled = new Map<string, CompiledResponse>();
      for (const key of Object.keys((responses as Json | undefined) ?? {})) {
        const where = `${file}#${pointerOf([...at, key])}`;
        try {
          const response = resolve((responses as Json)[key], [...at, key]);
          const requiredHeaders: string[] = [];
          const headerChecks = new Map<string, ValidateFunction>();
          for (const header of Object.keys((response.value.headers as Json | undefined) ?? {})) {
            // The specification has a documented Content-Type header ignored; the media types say it.
            if (header.toLowerCase() === 'content-type') continue;
            const definition = resolve((response.value.headers as Json)[header], [...response.at, 'headers', header]);
            if (definition.value.required === true) requiredHeaders.push(header);
            if (definition.value.schema !== undefined) {
              headerChecks.set(header, compileAt(headers, [...definition.at, 'schema'], 'value'));
            }
          }
          let content: Map<string, ValidateFunction | undefined> | undefined;
          const media = response.value.content as Json | undefined;
          if (media && Object.keys(media).length > 0) {
            content = new Map();
            for (const mediaType of Object.keys(media)) {
              const hasSchema = (media[mediaType] as Json | undefined)?.schema !== undefined;
              content.set(mediaType, hasSchema ? compileAt(bodies, [...response.at, 'content', mediaType, 'schema']) : undefined);
            }
          }
          compiled.set(key, { key, where, requiredHeaders, headerChecks, content });
        } catch (error) {
          this.problems.push(`${where} could not be compiled: ${(error as Error).message}`);
        }
      }
      return compiled;
    };

    const base = basePath(document.servers);
    const paths = (document.paths as Json | undefined) ?? {};
    for (const template of Object.keys(paths)) {
      const item = resolve(paths[template], ['paths', template]);
      for (const method of METHODS) {
        const operation = item.value[method] as Json | undefined;
        if (!operation) continue;
        const fullPath = `${basePath(operation.servers ?? item.value.servers) || base}${template}`;
        this.operations.push({
          document: name,
          name: `${method.toUpperCase()} ${fullPath}`,
          method: method.toUpperCase(),
          shape: shapeOf(fullPath),
          responses: compileResponses(operation.responses, [...item.at, method, 'responses']),
        });
      }
    }
    const unknownRoute = this.unknownRouteResponses(document);
    if (unknownRoute) {
      this.operations.push({
        document: name,
        name: UNKNOWN_ROUTE,
        method: '*',
        shape: '',
        responses: compileResponses(unknownRoute.responses, unknownRoute.at),
      });
    }
  }

  /**
   * Where a document describes its answers to a method and path that no route serves: OpenAPI has no place for them,
   * so the documents put them in an extension at their root, `x-unknown-route`, with responses as an operation has.
   */
  private unknownRouteResponses(document: Json): { responses: unknown; at: readonly string[] } | undefined {
    const unknownRoute = document['x-unknown-route'] as Json | undefined;
    return unknownRoute?.responses ? { responses: unknownRoute.responses, at: ['x-unknown-route', 'responses'] } : undefined;
  }

  private operationFor(exchange: GatewayExchange): CompiledOperation | string {
    if (exchange.routeKey === '$default') {
      const owner = contractDocuments.find((document) => document.owns(exchange.path));
      if (!owner || !this.documents.has(owner.name)) return `${owner?.file ?? 'no document'} could not be read`;
      return (
        this.operations.find((operation) => operation.document === owner.name && operation.name === UNKNOWN_ROUTE) ??
        `${owner.file} does not describe the answers to a method and path no route serves (x-unknown-route)`
      );
    }
    const [routeMethod = '', template = ''] = exchange.routeKey.split(' ');
    // HTTP defines HEAD by GET: a HEAD is held to its GET operation, without the body.
    const method = routeMethod === 'HEAD' ? 'GET' : routeMethod;
    const found = this.operations.find((operation) => operation.method === method && operation.shape === shapeOf(template));
    if (found) return found;
    const owner = contractDocuments.find((document) => document.owns(template));
    return `the route ${exchange.routeKey} is not an operation of ${owner?.file ?? 'either document'}`;
  }

  /** Judges one answer; the violation, when there is one, is said in a line that names the request. */
  check(exchange: GatewayExchange): { violation: string } | undefined {
    if (isOutsideTheContract(exchange.path)) {
      this.skipped += 1;
      return undefined;
    }
    const owner = contractDocuments.find((document) => document.owns(exchange.path));
    if (owner && !this.documents.has(owner.name)) {
      this.skipped += 1;
      return undefined;
    }
    const operation = this.operationFor(exchange);
    const name = typeof operation !== 'string' ? operation.name : exchange.routeKey === '$default' ? UNKNOWN_ROUTE : exchange.routeKey;
    const document = typeof operation === 'string' ? (owner?.name ?? '?') : operation.document;
    const response = typeof operation === 'string' ? undefined : responseFor(operation.responses, exchange.status);
    const problems =
      typeof operation === 'string'
        ? [operation]
        : response
          ? this.judge(exchange, response)
          : [`status ${exchange.status} is not documented (documented: ${[...operation.responses.keys()].join(', ') || 'none'})`];

    const tallyKey = `${document}\u0000${name}\u0000${exchange.status}`;
    const tally = this.tallies.get(tallyKey) ?? { document, operation: name, status: exchange.status, key: response?.key, count: 0 };
    tally.count += 1;
    this.tallies.set(tallyKey, tally);

    if (problems.length === 0) return undefined;
    const where = response ? ` [${response.where}]` : '';
    const request = `${exchange.method} ${cut(exchange.path, 120)}`;
    const violation = `${request}${request === name ? '' : ` (${name})`} answered ${exchange.status}: ${problems.join('; ')}${where}`;
    this.violations.set(violation, (this.violations.get(violation) ?? 0) + 1);
    return { violation };
  }

  private judge(exchange: GatewayExchange, response: CompiledResponse): string[] {
    const problems: string[] = [];
    for (const header of response.requiredHeaders) {
      if (headerValue(exchange.headers, header) === undefined) problems.push(`the required header ${header} is missing`);
    }
    for (const [header, validate] of response.headerChecks) {
      const value = headerValue(exchange.headers, header);
      if (value !== undefined && !validate({ value })) {
        problems.push(`header ${header}: ${JSON.stringify(cut(value, 60))} ${describeErrors(validate.errors).replace(/^\/value ?/, '')}`);
      }
    }
    if (exchange.method === 'HEAD') return problems;
    const text = exchange.body.toString('utf8');
    if (!response.content) {
      if (exchange.body.length > 0) problems.push(`a body (${exchange.body.length} bytes) where the document gives none`);
      return problems;
    }
    const contentType = (headerValue(exchange.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const mediaType = mediaTypeFor(response.content.keys(), contentType);
    if (mediaType === undefined) {
      problems.push(
        `content type ${JSON.stringify(contentType)} is not documented (documented: ${[...response.content.keys()].join(', ')})`,
      );
      return problems;
    }
    const validate = response.content.get(mediaType);
    if (!validate) return problems;
    let body: unknown = text;
    if (isJsonMediaType(mediaType)) {
      try {
        body = JSON.parse(text);
      } catch {
        problems.push(`the body is not JSON: ${JSON.stringify(cut(text, 80))}`);
        return problems;
      }
    }
    if (!validate(body)) problems.push(`the body does not match the ${mediaType} schema: ${describeErrors(validate.errors)}`);
    return problems;
  }

  /**
   * The counts table, every violation, and, when `enforceCoverage`, every documented operation and status that no
   * test reached and the unreachable list does not excuse.
   */
  report({ enforceCoverage }: { enforceCoverage: boolean }): ContractReport {
    const failures: string[] = [...this.problems];
    for (const [violation, count] of this.violations) failures.push(count > 1 ? `${violation} (×${count})` : violation);

    const lines = ['Contract checks: answers of the shared gateway, by operation and status', this.table()];
    if (this.skipped > 0) lines.push(`(${this.skipped} answers outside the documents were not checked)`);
    for (const note of this.notes) lines.push(`note: ${note}`);

    const gaps: string[] = [];
    const stale: string[] = [];
    const reached = (operation: CompiledOperation, key: string) =>
      [...this.tallies.values()].some(
        (tally) => tally.document === operation.document && tally.operation === operation.name && tally.key === key,
      );
    for (const operation of this.operations) {
      const label = `${operation.document} ${operation.name}`;
      const anyReached = [...this.tallies.values()].some(
        (tally) => tally.document === operation.document && tally.operation === operation.name,
      );
      if (!anyReached) gaps.push(`${label}: never exercised`);
      for (const key of operation.responses.keys()) {
        const excuse = unreachable.find((entry) => (entry.operation === '*' || entry.operation === operation.name) && entry.status === key);
        if (excuse && reached(operation, key))
          stale.push(`${label} ${key} is listed as unreachable (${excuse.reason}), yet a test reached it`);
        if (!excuse && anyReached && !reached(operation, key)) gaps.push(`${label} ${key}: documented, never answered`);
      }
    }
    for (const entry of unreachable) {
      const listed = this.operations.some(
        (operation) => (entry.operation === '*' || entry.operation === operation.name) && operation.responses.has(entry.status),
      );
      if (!listed && this.documents.size === contractDocuments.length) {
        stale.push(`${entry.operation} ${entry.status} is listed as unreachable, but no document lists it`);
      }
    }
    if (enforceCoverage) {
      failures.push(...gaps.map((gap) => `coverage: ${gap}`), ...stale.map((entry) => `coverage: ${entry}`));
    } else if (gaps.length > 0) {
      lines.push(`(coverage not enforced: only part of the integration project ran; ${gaps.length} gaps)`);
    }
    if (failures.length > 0) lines.push('', `Contract failures (${failures.length}):`, ...failures.map((failure) => `  - ${failure}`));
    return { text: lines.join('\n'), failures };
  }

  private table(): string {
    const order = (tally: Tally) => {
      const index = this.operations.findIndex((operation) => operation.document === tally.document && operation.name === tally.operation);
      return index === -1 ? this.operations.length : index;
    };
    const rows = [...this.tallies.values()]
      .sort((a, b) => order(a) - order(b) || a.operation.localeCompare(b.operation) || a.status - b.status)
      .map((tally) => [tally.document, tally.operation, String(tally.status), tally.key ?? 'UNDOCUMENTED', String(tally.count)]);
    const header = ['document', 'operation', 'status', 'as', 'checked'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
    const format = (row: readonly string[]) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
        .join('  ');
    const total = rows.reduce((sum, row) => sum + Number(row[4]), 0);
    const rule = '-'.repeat(widths.reduce((sum, width) => sum + width + 2, -2));
    return [format(header), rule, ...rows.map(format), rule, format(['', 'total', '', '', String(total)])].join('\n');
  }
}
