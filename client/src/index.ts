// The typed client for both surfaces of the pricing service: bearer auth, retries with backoff, and typed errors over openapi-fetch.
import createClient, { type Client } from 'openapi-fetch';
import type { components as ApiComponents, paths as ApiPaths } from './api-v1.d.ts';
import type { components as OverviewComponents, paths as OverviewPaths } from './overview-v1.d.ts';

export type { ApiComponents, ApiPaths, OverviewComponents, OverviewPaths };
export * from './webhooks.ts';

type ApiSchemas = ApiComponents['schemas'];
type OverviewSchemas = OverviewComponents['schemas'];

export type OpenedBatch = ApiSchemas['OpenedBatch'];
export type StageRequest = ApiSchemas['StageRequest'];
export type Entity = StageRequest['entity'];
export type RecordsOf<E extends Entity> = Extract<StageRequest, { entity: E }>['records'];
export type StagedRecords = ApiSchemas['StagedRecords'];
export type CommittedBatch = ApiSchemas['CommittedBatch'];
export type BatchStatus = ApiSchemas['BatchStatus'];
export type BatchState = BatchStatus['status'];
/** A page of the connector's own batches, newest first, and the list's query (`limit`, `starting_after`, `status`). */
export type BatchList = ApiPaths['/api/v1/ingest/batches']['get']['responses'][200]['content']['application/json'];
export type BatchListQuery = NonNullable<ApiPaths['/api/v1/ingest/batches']['get']['parameters']['query']>;
export type PriceRequestLine = ApiSchemas['PriceRequestLine'];
export type PriceResponse = ApiSchemas['PriceResponse'];
export type ClaimRequest = ApiSchemas['ClaimRequest'];
export type ClaimResponse = ApiSchemas['ClaimResponse'];
export type WritebackTask = ApiSchemas['WritebackTask'];
export type AckResult = ApiSchemas['AckResult'];
export type AckCounts = ApiSchemas['AckCounts'];
export type ExtendRequest = ApiSchemas['ExtendRequest'];
export type ExtendResponse = ApiSchemas['ExtendResponse'];
export type OverviewPrice = OverviewSchemas['OverviewPrice'];
/** What `getPrice` may add, as the contract lists them (`rationale`, `drivers`, `impact`). */
export type PriceInclude = NonNullable<NonNullable<OverviewPaths['/v1/prices/{sku}']['get']['parameters']['query']>['include']>[number];
export type Approval = OverviewSchemas['Approval'];
/** The cost report is an inline schema of its one operation, not a named one. */
export type CostReport = OverviewPaths['/v1/usage']['get']['responses'][200]['content']['application/json'];
export interface UsageQuery {
  /** The first UTC day, YYYY-MM-DD; defaults to `to`. */
  readonly from?: string;
  /** The last UTC day, YYYY-MM-DD; defaults to today. */
  readonly to?: string;
  readonly by?: 'day' | 'route';
}

/**
 * Codes of both envelopes, plus two of the client's own: `gateway_error` for API Gateway's `{"message"}` answers (413,
 * its 503 timeout), and `unexpected_response` for a body in neither shape.
 */
export type PricingErrorCode =
  ApiSchemas['Error']['error']['code'] | OverviewSchemas['OverviewError']['error']['code'] | 'gateway_error' | 'unexpected_response';

export interface PricingApiErrorFields {
  readonly status: number;
  readonly code: PricingErrorCode;
  readonly message: string;
  readonly param?: string | undefined;
  readonly requestId?: string | undefined;
}

/** Any non-2xx answer of a convenience method, from either surface's envelope. */
export class PricingApiError extends Error implements PricingApiErrorFields {
  override readonly name = 'PricingApiError';
  readonly status: number;
  readonly code: PricingErrorCode;
  readonly param?: string;
  readonly requestId?: string;

  constructor(fields: PricingApiErrorFields) {
    super(fields.message);
    this.status = fields.status;
    this.code = fields.code;
    if (fields.param !== undefined) this.param = fields.param;
    if (fields.requestId !== undefined) this.requestId = fields.requestId;
  }
}

/**
 * `waitForBatch` gave up: the batch stood still past `stallMs` (`stalled` true), or the wait passed `timeoutMs`.
 * `lastStatus` is what the batch showed last.
 */
export class BatchWaitTimeoutError extends Error {
  override readonly name = 'BatchWaitTimeoutError';
  readonly lastStatus: BatchStatus;
  readonly stalled: boolean;

  constructor(batchId: string, waitedMs: number, lastStatus: BatchStatus, stalled = false) {
    const state = lastStatus.status === 'drained' ? 'drained, its prices not yet recomputed (no bandsRecomputedAt),' : lastStatus.status;
    super(
      stalled
        ? `batch ${batchId} was still ${state} and had not moved on for ${waitedMs} ms${lastStatus.progressAt ? ` (last progress at ${lastStatus.progressAt})` : ''}`
        : `batch ${batchId} was still ${state} after ${waitedMs} ms`,
    );
    this.lastStatus = lastStatus;
    this.stalled = stalled;
  }
}

export interface RetryOptions {
  /** Tries in all, the first included. Default 5. */
  readonly attempts?: number;
  /** Default 200. */
  readonly baseDelayMs?: number;
  /** The most any one wait may be, a Retry-After included. Default 10 000. */
  readonly maxDelayMs?: number;
}

export interface PricingClientOptions {
  /** The host the service answers on, without a path: `http://127.0.0.1:3000` locally, the stack's ApiUrl in AWS. */
  readonly baseUrl: string;
  /** A `svc_live_` key for `api`, a `pw_live_`/`pw_test_` key for `overview`. */
  readonly key: string;
  readonly fetch?: typeof globalThis.fetch;
  readonly retry?: RetryOptions;
  /** How the client waits between tries and polls; tests pass one that does not. */
  readonly sleep?: (ms: number) => Promise<void>;
}

export interface WaitForBatchOptions {
  /**
   * When to stop. `prices` (the default): once prices reflect the batch, that is drained with `bandsRecomputedAt`, or
   * failed. `drained`: at `drained` or `failed`, before the bands job after the drain has ended. Or the states to stop
   * at, or a test of the whole status.
   */
  readonly until?: 'prices' | 'drained' | readonly BatchState[] | ((status: BatchStatus) => boolean);
  /** Default 1 000. */
  readonly pollMs?: number;
  /**
   * Gives up when the batch has not moved on for this long: no new state, drained count, phase or `progressAt`.
   * Default 300 000. A batch in hand moves on at least every few minutes, however large it is.
   */
  readonly stallMs?: number;
  /** Gives up after this long whatever the batch does. Default: no limit, the stall timeout alone. */
  readonly timeoutMs?: number;
  /** Hears every status read, the last included: for progress while it waits. */
  readonly onStatus?: (status: BatchStatus) => void;
}

/** What changes whenever a batch moves on: the wait's stall clock starts again at each new mark. */
function progressMark(status: BatchStatus): string {
  return [status.status, status.drainedCount, status.drainedAt, status.pricesFreshAt, status.bandsRecomputedAt, status.progressAt].join(
    ' ',
  );
}

/** Whether a status is one `waitForBatch` stops at. */
function waitIsOver(until: NonNullable<WaitForBatchOptions['until']>): (status: BatchStatus) => boolean {
  if (typeof until === 'function') return until;
  if (until === 'prices') return (status) => status.status === 'failed' || (status.status === 'drained' && !!status.bandsRecomputedAt);
  const states: readonly BatchState[] = until === 'drained' ? ['drained', 'failed'] : until;
  return (status) => states.includes(status.status);
}

export interface PricingClient {
  /** The typed openapi-fetch client of `/api/v1`, with the same auth and retries, for anything not wrapped here. */
  readonly api: Client<ApiPaths>;
  /** The typed openapi-fetch client of `/v1`. */
  readonly overview: Client<OverviewPaths>;
  openBatch(): Promise<OpenedBatch>;
  stageRecords<E extends Entity>(batchId: string, entity: E, records: RecordsOf<E>): Promise<StagedRecords>;
  commitBatch(batchId: string): Promise<CommittedBatch>;
  /** Cancels an open batch and discards what it staged: `failed`, with `cancelledAt`. */
  cancelBatch(batchId: string): Promise<BatchStatus>;
  listBatches(query?: BatchListQuery): Promise<BatchList>;
  batchStatus(batchId: string): Promise<BatchStatus>;
  waitForBatch(batchId: string, options?: WaitForBatchOptions): Promise<BatchStatus>;
  priceLines(lines: PriceRequestLine[], options?: { idempotencyKey?: string }): Promise<PriceResponse>;
  claimWritebacks(options?: ClaimRequest): Promise<ClaimResponse>;
  ackWritebacks(results: AckResult[]): Promise<AckCounts>;
  extendWriteback(id: string, options?: ExtendRequest): Promise<ExtendResponse>;
  getPrice(sku: string, options?: { include?: PriceInclude[] }): Promise<OverviewPrice>;
  /**
   * Approves a price. Every call carries an Idempotency-Key, made once per call unless given, so that a retry after a
   * timeout gets the first answer instead of publishing the price again. `confirm` approves a move past the
   * workspace's confirmation threshold, which is otherwise refused with `confirmation_required`.
   */
  approvePrice(sku: string, price: number, options?: { confirm?: boolean; idempotencyKey?: string }): Promise<Approval>;
  /** What the workspace cost, in dollars at list prices, by day or by route. */
  usage(query?: UsageQuery): Promise<CostReport>;
}

/**
 * Polls a batch's status until `until` holds. Gives up when the status stands still for `stallMs`, or after
 * `timeoutMs` in all when a caller sets one.
 */
async function waitForBatch(
  batchStatus: (batchId: string) => Promise<BatchStatus>,
  sleep: (ms: number) => Promise<void>,
  batchId: string,
  { until = 'prices', pollMs = 1_000, stallMs = 300_000, timeoutMs = Infinity, onStatus }: WaitForBatchOptions = {},
): Promise<BatchStatus> {
  const done = waitIsOver(until);
  // Counted as well as the clock, so that a sleep that does not wait (in tests) still reaches the timeouts.
  const began = Date.now();
  let slept = 0;
  let moved = { at: began, slept, mark: '' };
  const since = (at: number, sleptThen: number) => Math.max(slept - sleptThen, Date.now() - at);
  for (;;) {
    const status = await batchStatus(batchId);
    onStatus?.(status);
    if (done(status)) return status;
    const mark = progressMark(status);
    if (mark !== moved.mark) moved = { at: Date.now(), slept, mark };
    if (since(began, 0) >= timeoutMs) throw new BatchWaitTimeoutError(batchId, timeoutMs, status);
    if (since(moved.at, moved.slept) >= stallMs) throw new BatchWaitTimeoutError(batchId, stallMs, status, true);
    await sleep(pollMs);
    slept += pollMs;
  }
}

export function createPricingClient(options: PricingClientOptions): PricingClient {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const fetch = retryingFetch(options.fetch ?? globalThis.fetch, options.retry ?? {}, sleep);
  const shared = { baseUrl: options.baseUrl, fetch, headers: { Authorization: `Bearer ${options.key}` } };
  const api = createClient<ApiPaths>(shared);
  // The contract sends `include` comma-separated (form, explode: false), where openapi-fetch would repeat the name.
  const overview = createClient<OverviewPaths>({ ...shared, querySerializer: { array: { style: 'form', explode: false } } });

  const batchStatus = (batchId: string) => unwrap(api.GET('/api/v1/ingest/batches/{batchId}', { params: { path: { batchId } } }));

  return {
    api,
    overview,
    openBatch: () => unwrap(api.POST('/api/v1/ingest/batches', { body: {} })),
    stageRecords: (batchId, entity, records) =>
      unwrap(
        api.POST('/api/v1/ingest/batches/{batchId}/records', {
          params: { path: { batchId } },
          // TypeScript cannot tie the generic entity to its records' member of the union; the signature already has.
          body: { entity, records } as StageRequest,
        }),
      ),
    commitBatch: (batchId) => unwrap(api.POST('/api/v1/ingest/batches/{batchId}/commit', { params: { path: { batchId } }, body: {} })),
    cancelBatch: (batchId) => unwrap(api.POST('/api/v1/ingest/batches/{batchId}/cancel', { params: { path: { batchId } }, body: {} })),
    listBatches: (query = {}) => unwrap(api.GET('/api/v1/ingest/batches', { params: { query } })),
    batchStatus,
    waitForBatch: (batchId, wait) => waitForBatch(batchStatus, sleep, batchId, wait),
    // The key is made once per call, outside the retrying fetch, so that every retry of it is the same logical request.
    priceLines: (lines, { idempotencyKey = globalThis.crypto.randomUUID() } = {}) =>
      unwrap(api.POST('/api/v1/prices', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body: { lines } })),
    claimWritebacks: (claim = {}) => unwrap(api.POST('/api/v1/writebacks/claim', { body: claim })),
    ackWritebacks: (results) => unwrap(api.POST('/api/v1/writebacks/ack', { body: { results } })),
    extendWriteback: (id, extension = {}) =>
      unwrap(api.POST('/api/v1/writebacks/{id}/extend', { params: { path: { id } }, body: extension })),
    getPrice: (sku, { include } = {}) =>
      unwrap(overview.GET('/v1/prices/{sku}', { params: { path: { sku }, query: include?.length ? { include } : {} } })),
    approvePrice: (sku, price, { confirm, idempotencyKey = globalThis.crypto.randomUUID() } = {}) =>
      unwrap(
        overview.POST('/v1/prices/approve', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body: { sku, price, ...(confirm === undefined ? {} : { confirm }) },
        }),
      ),
    usage: (query = {}) => unwrap(overview.GET('/v1/usage', { params: { query } })),
  };
}

async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<NonNullable<T>> {
  const { data, error, response } = await pending;
  if (!response.ok) throw toPricingApiError(response, error);
  return data as NonNullable<T>;
}

function toPricingApiError(response: Response, body: unknown): PricingApiError {
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  const envelope = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (envelope && typeof envelope.code === 'string') {
    return new PricingApiError({
      status: response.status,
      code: envelope.code as PricingErrorCode,
      message: stringOr(envelope.message, ''),
      param: stringOr(envelope.param, undefined),
      requestId: stringOr(envelope.requestId, stringOr(envelope.request_id, headerRequestId)),
    });
  }
  const gateway = isRecord(body) && typeof body.message === 'string';
  return new PricingApiError({
    status: response.status,
    code: gateway ? 'gateway_error' : 'unexpected_response',
    message: gateway ? String(body.message) : `HTTP ${response.status} ${response.statusText}`.trim(),
    requestId: headerRequestId,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

/** 429 is the rate limit; 503 is a timeout or an outage. A 500 is not here: it may have done part of its work. */
const RETRYABLE_STATUSES = new Set([429, 503]);

/**
 * A fetch that retries on its own, below openapi-fetch, so every try sends the very request the caller built (its
 * Idempotency-Key included) from a fresh clone: a body can be read only once.
 */
function retryingFetch(
  baseFetch: typeof globalThis.fetch,
  { attempts = 5, baseDelayMs = 200, maxDelayMs = 10_000 }: RetryOptions,
  sleep: (ms: number) => Promise<void>,
): typeof globalThis.fetch {
  const backoff = (attempt: number) => Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 1; ; attempt++) {
      let delayMs: number;
      try {
        const response = await baseFetch(original.clone());
        if (!RETRYABLE_STATUSES.has(response.status) || attempt >= attempts) return response;
        delayMs = retryAfterMs(response.headers.get('retry-after')) ?? backoff(attempt);
        // A wait past the cap (the monthly quota's Retry-After is the rest of the month) is not one to sleep through.
        if (delayMs > maxDelayMs) return response;
        await response.body?.cancel();
      } catch (error) {
        if (original.signal.aborted || attempt >= attempts) throw error;
        delayMs = backoff(attempt);
      }
      await sleep(delayMs);
    }
  };
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
