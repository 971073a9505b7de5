// The rules of an ingest batch, free of storage: expiry, entity order, the record and line caps, refusals and the status view.
import { ApiError } from '#platform/errors.ts';
import { entityKinds, entityRank, type EntityKind } from '#shared/records/schema.ts';
import type { Batch } from './schema.ts';
import type { BatchStatusView } from './views.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** An open batch that is not committed within this long fails. */
export const OPEN_BATCH_LIFETIME_MS = 24 * HOUR_MS;
/** Staged records are kept this long after their batch ends, for investigating a drain. */
export const STAGED_RETENTION_MS = 7 * DAY_MS;
export const EXPIRED_ERROR = 'batch expired before commit';
/** A cancelled batch is `failed` with this error (the contract's five statuses have no sixth), and shows `cancelledAt`. */
export const CANCELLED_ERROR = 'batch cancelled before commit';

export function isExpired(batch: Pick<Batch, 'status' | 'createdAt'>, now: Date): boolean {
  return batch.status === 'open' && Date.parse(batch.createdAt) + OPEN_BATCH_LIFETIME_MS <= now.getTime();
}

/** The moment before which a batch must have been created to be expired now; conditions compare createdAt to it. */
export function expiryCutoff(now: Date): string {
  return new Date(now.getTime() - OPEN_BATCH_LIFETIME_MS).toISOString();
}

/**
 * When DynamoDB's TTL may remove a staged chunk. A batch ends at the latest when its open life runs out, so a chunk
 * that expires a retention period after that outlives every batch's end by at least the retention period, and is
 * written once, with no second write when the batch ends.
 */
export function chunkExpiresAt(batch: Pick<Batch, 'createdAt'>): number {
  return Math.floor((Date.parse(batch.createdAt) + OPEN_BATCH_LIFETIME_MS + STAGED_RETENTION_MS) / 1000);
}

/** The kinds already staged that forbid staging `entity`: those of higher rank. */
export function kindsRankedAbove(entity: EntityKind): EntityKind[] {
  return entityKinds.filter((kind) => entityRank[kind] > entityRank[entity]);
}

export function violatesEntityOrder(staged: readonly EntityKind[], entity: EntityKind): boolean {
  return staged.some((kind) => entityRank[kind] > entityRank[entity]);
}

/** How many of a call's records fit under the cap, in array order; the rest are skipped and counted. */
export function admitRecords(recordCount: number, cap: number, offered: number): { accepted: number; skipped: number } {
  const accepted = Math.max(0, Math.min(offered, cap - recordCount));
  return { accepted, skipped: offered - accepted };
}

export interface BatchCaps {
  readonly records: number;
  readonly lines: number;
}

export interface Admission {
  readonly accepted: number;
  readonly skipped: number;
  /** The lines of the records accepted. */
  readonly lines: number;
}

/**
 * The longest run of a call's records, from its first, that keeps the batch within both caps: records, and the lines
 * of quotes and orders. A document that would take the batch past the line cap is skipped whole, with every record
 * after it, as records past the record cap are: the call's records stay in their order, and what is skipped is counted.
 */
export function admitCall(
  staged: { readonly recordCount: number; readonly lineCount: number },
  caps: BatchCaps,
  recordLines: readonly number[],
): Admission {
  let { accepted } = admitRecords(staged.recordCount, caps.records, recordLines.length);
  let lines = 0;
  for (let index = 0; index < accepted; index++) {
    const next = lines + (recordLines[index] ?? 0);
    if (staged.lineCount + next > caps.lines) {
      accepted = index;
      break;
    }
    lines = next;
  }
  return { accepted, skipped: recordLines.length - accepted, lines };
}

export function batchNotFound(): ApiError {
  return new ApiError('batch_not_found', 'No batch with this id belongs to this connector.', { param: 'batchId' });
}

export function notOpen(batch: Pick<Batch, 'status'>): ApiError {
  return new ApiError('batch_already_committed', `The batch is ${batch.status}; only an open batch takes records or a commit.`);
}

/** Why a batch cannot be cancelled: only an open one can, and a committed one is on its way to the drain. */
export function notCancellable(batch: Pick<Batch, 'status'>): ApiError {
  return new ApiError(
    'batch_already_committed',
    `The batch is ${batch.status}; only an open batch can be cancelled, and a committed one drains.`,
  );
}

/** Whether the caller may see the batch at all: another connector's batch is as unknown as a missing one. */
export function isOwnBatch(batch: Batch | undefined, connectorId: string): batch is Batch {
  return batch !== undefined && batch.connectorId === connectorId;
}

/** Why a staging call was refused, in the order the contract gives: unknown, entity order, then not open. */
export function stagingRefusal(batch: Batch | undefined, connectorId: string, entity: EntityKind, now: Date): ApiError | undefined {
  if (!isOwnBatch(batch, connectorId)) return batchNotFound();
  if (violatesEntityOrder(batch.entities, entity)) {
    const staged = batch.entities.filter((kind) => entityRank[kind] > entityRank[entity]);
    return new ApiError(
      'batch_entity_order_violation',
      `This batch already holds ${staged.join(', ')}; ${entity} records must be staged before them (order: ${entityKinds.join(', ')}).`,
      { param: 'entity' },
    );
  }
  if (batch.status !== 'open' || isExpired(batch, now)) return notOpen(expired(batch, now));
  return undefined;
}

/** The batch as it stands now: an open batch past its life is failed, whether or not that has been written yet. */
export function expired(batch: Batch, now: Date): Batch {
  if (!isExpired(batch, now)) return batch;
  return {
    ...batch,
    status: 'failed',
    error: EXPIRED_ERROR,
    failedAt: new Date(Date.parse(batch.createdAt) + OPEN_BATCH_LIFETIME_MS).toISOString(),
  };
}

/**
 * When the service last moved a committed batch on: its commit, a look at its turn while it waits behind an earlier
 * batch (at most one a minute), a job's lease or checkpoint, or the end of a phase. A waiting client that sees it
 * stand still for long knows the batch stalled, however long a large batch takes while it moves.
 */
function progressAt(batch: Batch): string | undefined {
  if (batch.status === 'open') return undefined;
  const moments = [batch.committedAt, batch.drainSeenAt, batch.progressAt, batch.drainedAt, batch.pricesFreshAt, batch.bandsRecomputedAt];
  return moments.reduce<string | undefined>(
    (latest, at) => (at !== undefined && (latest === undefined || at > latest) ? at : latest),
    undefined,
  );
}

export function statusView(batch: Batch): BatchStatusView {
  const progressed = progressAt(batch);
  return {
    status: batch.status,
    entities: batch.entities,
    recordCount: batch.recordCount,
    skippedOverCap: batch.skippedOverCap,
    createdAt: batch.createdAt,
    ...(batch.committedAt ? { committedAt: batch.committedAt } : {}),
    ...(batch.drainedAt ? { drainedAt: batch.drainedAt } : {}),
    ...(batch.drainedCount === undefined ? {} : { drainedCount: batch.drainedCount, warnedProducts: batch.warnedProducts ?? 0 }),
    ...(batch.pricesFreshAt ? { pricesFreshAt: batch.pricesFreshAt } : {}),
    ...(batch.bandsRecomputedAt ? { bandsRecomputedAt: batch.bandsRecomputedAt } : {}),
    ...(progressed ? { progressAt: progressed } : {}),
    ...(batch.cancelledAt ? { cancelledAt: batch.cancelledAt } : {}),
    ...(batch.status === 'failed' && batch.error ? { error: batch.error } : {}),
  };
}
