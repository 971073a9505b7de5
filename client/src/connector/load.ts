// Loading an export as one batch: stage each kind in rank order in bounded calls, commit, and follow the drain and the bands job to prices.
import { entityRank, type EntityKind } from '../../../shared/records/schema.ts';
import { MAX_RECORDS_PER_CALL, readStageRequest } from '../../../shared/records/stage-request.ts';
import { RecordError, type SourcedRecord } from './files.ts';
import { cancelOpenBatch, LoadError, recordFailure, serviceFailure, uncommitted } from './load-failures.ts';

export { LoadError } from './load-failures.ts';

export interface LoadBatchStatus {
  readonly status: string;
  readonly recordCount: number;
  readonly skippedOverCap: number;
  readonly drainedCount?: number;
  readonly bandsRecomputedAt?: string;
  readonly error?: string;
}

/**
 * How far a load follows its batch after the commit: until prices reflect it (`bandsRecomputedAt`, the default), or
 * until it has drained, its records stored but the bands drawn from them not yet recomputed.
 */
export type LoadUntil = 'prices' | 'drained';

export interface LoadWait {
  readonly until: LoadUntil;
  /** Hears each status read while waiting. */
  readonly onStatus: (status: LoadBatchStatus) => void;
}

/** The part of `@pricing-service/client` the loader uses, so tests can hand it a fake. */
export interface LoadApi {
  openBatch(): Promise<{ batchId: string }>;
  stageRecords(batchId: string, entity: EntityKind, records: Record<string, unknown>[]): Promise<{ staged: number }>;
  commitBatch(batchId: string): Promise<unknown>;
  /** Cancels an open batch, discarding what it staged: a load that stops before its commit leaves nothing open. */
  cancelBatch(batchId: string): Promise<unknown>;
  /** Resolves with the status the wait stopped at (failed, or as `until` says); throws when it gives up. */
  waitForBatch(batchId: string, wait: LoadWait): Promise<LoadBatchStatus>;
}

export interface LoadSource {
  readonly entity: EntityKind;
  readonly records: AsyncIterable<SourcedRecord>;
}

export type LoadEvent =
  | { type: 'opened'; batchId: string }
  | { type: 'progress'; records: number; elapsedMs: number }
  | { type: 'committed'; batchId: string }
  /** Each status read after the commit, with the time since the commit. */
  | { type: 'waiting'; status: LoadBatchStatus; elapsedMs: number }
  | { type: 'drained'; status: LoadBatchStatus; drainMs: number };

export interface LoadSummary {
  readonly batchId: string | undefined;
  readonly dryRun: boolean;
  /** Records staged (or, in a dry run, validated) per kind. */
  readonly counts: Record<EntityKind, number>;
  readonly skippedOverCap: number;
  /** From the commit until the batch was seen drained. */
  readonly drainMs: number;
  /** From the commit until prices were seen to reflect the batch; undefined when the load stopped at the drain. */
  readonly pricesMs: number | undefined;
  readonly status: LoadBatchStatus | undefined;
}

export interface LoadOptions {
  readonly api: LoadApi;
  readonly sources: readonly LoadSource[];
  readonly dryRun?: boolean;
  /** Staging calls in flight at once, within one kind. */
  readonly concurrency?: number;
  readonly recordsPerCall?: number;
  /** Default `prices`. */
  readonly until?: LoadUntil;
  readonly now?: () => number;
  readonly report?: (event: LoadEvent) => void;
}

function emptyCounts(): Record<EntityKind, number> {
  return { product: 0, customer: 0, quote: 0, order: 0 };
}

/** Stages every source in rank order, each kind's calls ended before the next kind's start; a bad record stops it. */
async function stageAll(
  sources: readonly LoadSource[],
  perCall: number,
  send: (entity: EntityKind, chunk: SourcedRecord[]) => Promise<void>,
  settle: () => Promise<void>,
  inFlight: ReadonlySet<Promise<void>>,
  batchId: string | undefined,
): Promise<void> {
  for (const source of sources) {
    let chunk: SourcedRecord[] = [];
    try {
      for await (const sourced of source.records) {
        chunk.push(sourced);
        if (chunk.length >= perCall) {
          await send(source.entity, chunk);
          chunk = [];
        }
      }
    } catch (error) {
      if (!(error instanceof RecordError)) throw error;
      await Promise.allSettled(inFlight);
      // A message that asks a question keeps its question mark.
      const end = /[.?!]$/.test(error.message) ? '' : '.';
      throw new LoadError(`${error.message}${end} ${uncommitted(batchId)}`, {
        batchId,
        file: error.file,
        line: error.line,
        field: error.field,
        cause: error,
      });
    }
    if (chunk.length > 0) await send(source.entity, chunk);
    // The service takes the kinds in rank order: a kind's calls all end before the next kind's start.
    await settle();
  }
}

/** Where a load's records are sent: the open batch (none on a dry run), with the counts and progress it keeps. */
interface StagingTarget {
  readonly api: LoadApi;
  readonly batchId: string | undefined;
  readonly dryRun: boolean;
  readonly concurrency: number;
  readonly counts: Record<EntityKind, number>;
  readonly now: () => number;
  readonly started: number;
  readonly report: (event: LoadEvent) => void;
}

/**
 * The staging calls of one load: `send` checks a chunk and stages it, at most `concurrency` calls at once; `settle`
 * waits for every call under way and throws the first failure among them, if any.
 */
function stagingCalls(target: StagingTarget) {
  const { api, batchId, dryRun, concurrency, counts, now, started, report } = target;
  const inFlight = new Set<Promise<void>>();
  let failure: LoadError | undefined;
  let done = 0;

  const settle = async () => {
    await Promise.all(inFlight);
    if (failure) throw failure;
  };

  const send = async (entity: EntityKind, chunk: SourcedRecord[]) => {
    if (failure) await settle();
    const records = chunk.map((sourced) => sourced.record);
    try {
      readStageRequest({ entity, records });
    } catch (error) {
      // Calls already sent are let finish, so that nothing is left running when the loader returns.
      await Promise.allSettled(inFlight);
      const { message, param } = error as { message: string; param?: string };
      throw (
        recordFailure({ message, param }, chunk, batchId, error) ??
        new LoadError(`${message} ${uncommitted(batchId)}`, { batchId, cause: error })
      );
    }
    if (dryRun || batchId === undefined) {
      counts[entity] += chunk.length;
      done += chunk.length;
      report({ type: 'progress', records: done, elapsedMs: now() - started });
      return;
    }
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
    if (failure) await settle();
    const id = batchId;
    const call: Promise<void> = api
      .stageRecords(id, entity, records)
      .then(({ staged }) => {
        counts[entity] += staged;
        done += chunk.length;
        report({ type: 'progress', records: done, elapsedMs: now() - started });
      })
      .catch((error: unknown) => {
        const { message, param } = (error ?? {}) as { message?: string; param?: string };
        failure ??=
          recordFailure({ message: message ?? String(error), param }, chunk, id, error) ??
          serviceFailure(error, `Staging ${entity} records`, id);
      })
      .finally(() => inFlight.delete(call));
    inFlight.add(call);
  };

  return { send, settle, inFlight };
}

/** Commits the batch; a commit that fails may still have been taken, and the message says so. */
async function commitLoad(api: LoadApi, batchId: string, report: (event: LoadEvent) => void): Promise<void> {
  try {
    await api.commitBatch(batchId);
  } catch (error) {
    // A commit that timed out may still have been taken, so the message does not promise that nothing was.
    throw serviceFailure(
      error,
      `Committing batch ${batchId}`,
      batchId,
      "It may not have been committed: check the batch's status before loading again.",
    );
  }
  report({ type: 'committed', batchId });
}

export async function loadExport(options: LoadOptions): Promise<LoadSummary> {
  const { api, dryRun = false } = options;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const perCall = options.recordsPerCall ?? MAX_RECORDS_PER_CALL;
  const now = options.now ?? Date.now;
  const report = options.report ?? (() => {});
  const started = now();
  const counts = emptyCounts();
  let batchId: string | undefined;

  if (!dryRun) {
    try {
      batchId = (await api.openBatch()).batchId;
    } catch (error) {
      throw serviceFailure(error, 'Opening a batch', undefined);
    }
    report({ type: 'opened', batchId });
  }

  const { send, settle, inFlight } = stagingCalls({ api, batchId, dryRun, concurrency, counts, now, started, report });
  const sources = [...options.sources].sort((a, b) => entityRank[a.entity] - entityRank[b.entity]);
  try {
    await stageAll(sources, perCall, send, settle, inFlight, batchId);
  } catch (error) {
    if (error instanceof LoadError) throw await cancelOpenBatch(api, error);
    throw error;
  }

  if (dryRun || batchId === undefined) {
    return { batchId, dryRun: true, counts, skippedOverCap: 0, drainMs: 0, pricesMs: undefined, status: undefined };
  }
  await commitLoad(api, batchId, report);
  return followBatch(api, batchId, options.until ?? 'prices', { now, report, counts });
}

/** After the commit: waits as `until` says, reporting each status, and answers the summary or why it stopped. */
async function followBatch(
  api: LoadApi,
  batchId: string,
  until: LoadUntil,
  { now, report, counts }: { now: () => number; report: (event: LoadEvent) => void; counts: Record<EntityKind, number> },
): Promise<LoadSummary> {
  const committedAt = now();
  let drainedAt: number | undefined;
  const onStatus = (seen: LoadBatchStatus) => {
    const at = now();
    if (seen.status === 'drained' && drainedAt === undefined) {
      drainedAt = at;
      report({ type: 'drained', status: seen, drainMs: at - committedAt });
    }
    report({ type: 'waiting', status: seen, elapsedMs: at - committedAt });
  };
  let status: LoadBatchStatus;
  try {
    status = await api.waitForBatch(batchId, { until, onStatus });
  } catch (error) {
    const last = (error as { lastStatus?: LoadBatchStatus }).lastStatus;
    const why =
      last?.status === 'drained'
        ? `drained (its records are stored), but its prices were not yet recomputed when the wait gave up (${(error as Error).message}); they follow when the bands job ends, which its status shows as bandsRecomputedAt`
        : `was committed, but following it failed: ${(error as Error).message}`;
    throw new LoadError(`Batch ${batchId} ${why}`, { batchId, committed: true, cause: error });
  }
  const end = now();
  if (status.status !== 'drained') {
    throw new LoadError(
      `Batch ${batchId} was committed but ${status.status === 'failed' ? 'failed to drain' : `is ${status.status}`}${status.error ? `: ${status.error}` : ''}`,
      { batchId, committed: true },
    );
  }
  return {
    batchId,
    dryRun: false,
    counts,
    skippedOverCap: status.skippedOverCap,
    drainMs: (drainedAt ?? end) - committedAt,
    pricesMs: until === 'prices' ? end - committedAt : undefined,
    status,
  };
}
