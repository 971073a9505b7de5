// Unit tests of the batch rules: expiry, chunk retention, entity order, the record cap, staging refusals, the status view and the batch schema.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import { entityKinds, entityRank, type EntityKind } from '#shared/records/schema.ts';
import {
  admitCall,
  admitRecords,
  chunkExpiresAt,
  EXPIRED_ERROR,
  expired,
  expiryCutoff,
  isExpired,
  isOwnBatch,
  kindsRankedAbove,
  OPEN_BATCH_LIFETIME_MS,
  STAGED_RETENTION_MS,
  stagingRefusal,
  statusView,
  violatesEntityOrder,
} from './rules.ts';
import { type Batch, BatchIdSchema, BatchSchema, type BatchStatus } from './schema.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const createdAt = '2026-03-10T12:00:00.000Z';
const createdMs = Date.parse(createdAt);
const batchId = '0b6f3c1e-8a2d-4f6b-9c1e-2d3f4a5b6c7d';

function batch(overrides: Partial<Batch> = {}): Batch {
  return {
    batchId,
    workspaceId: 'ws-1',
    connectorId: 'conn-1',
    status: 'open',
    entities: [],
    recordCount: 0,
    lineCount: 0,
    skippedOverCap: 0,
    createdAt,
    chunkSeq: 0,
    ...overrides,
  };
}

function at(offsetMs: number): Date {
  return new Date(createdMs + offsetMs);
}

describe('expiry of an open batch', () => {
  it('gives an open batch 24 hours and 7 days of staged retention', () => {
    expect(OPEN_BATCH_LIFETIME_MS).toBe(24 * HOUR_MS);
    expect(STAGED_RETENTION_MS).toBe(7 * DAY_MS);
    expect(EXPIRED_ERROR).toBe('batch expired before commit');
  });

  it('is not expired a millisecond before 24 hours and is expired exactly at 24 hours', () => {
    expect(isExpired(batch(), at(0))).toBe(false);
    expect(isExpired(batch(), at(OPEN_BATCH_LIFETIME_MS - 1))).toBe(false);
    expect(isExpired(batch(), at(OPEN_BATCH_LIFETIME_MS))).toBe(true);
    expect(isExpired(batch(), at(OPEN_BATCH_LIFETIME_MS + 1))).toBe(true);
  });

  it('never expires a batch that is no longer open, however old', () => {
    for (const status of ['committed', 'draining', 'drained', 'failed'] as const) {
      expect(isExpired(batch({ status }), at(30 * DAY_MS)), status).toBe(false);
      expect(expired(batch({ status }), at(30 * DAY_MS)), status).toEqual(batch({ status }));
    }
  });

  it('gives back the very same batch while it has not expired', () => {
    const open = batch({ entities: ['product'], recordCount: 3 });
    expect(expired(open, at(OPEN_BATCH_LIFETIME_MS - 1))).toBe(open);
  });

  it('turns an expired open batch into a failed one, failed at the moment its life ran out', () => {
    const open = batch({ entities: ['product'], recordCount: 3 });
    const result = expired(open, at(OPEN_BATCH_LIFETIME_MS + 5 * HOUR_MS));
    expect(result).toEqual({
      ...open,
      status: 'failed',
      error: 'batch expired before commit',
      failedAt: new Date(createdMs + OPEN_BATCH_LIFETIME_MS).toISOString(),
    });
    expect(open.status).toBe('open');
  });

  it('puts the cutoff 24 hours before now, so a batch created at the cutoff is expired and one a millisecond later is not', () => {
    const now = new Date('2026-03-11T12:00:00.000Z');
    const cutoff = expiryCutoff(now);
    expect(cutoff).toBe('2026-03-10T12:00:00.000Z');
    expect(isExpired(batch({ createdAt: cutoff }), now)).toBe(true);
    expect(isExpired(batch({ createdAt: new Date(Date.parse(cutoff) + 1).toISOString() }), now)).toBe(false);
  });
});

describe('chunk expiry', () => {
  it('lets a staged chunk go 24 hours and 7 days after its batch was created, in epoch seconds', () => {
    expect(chunkExpiresAt(batch())).toBe((createdMs + DAY_MS + 7 * DAY_MS) / 1000);
    expect(chunkExpiresAt(batch())).toBe(Date.parse('2026-03-18T12:00:00.000Z') / 1000);
  });

  it('rounds a creation time with milliseconds down to a whole second', () => {
    expect(chunkExpiresAt({ createdAt: '2026-03-10T12:00:00.999Z' })).toBe((createdMs + 8 * DAY_MS) / 1000);
  });
});

describe('entity order', () => {
  it('lists the kinds ranked above each kind', () => {
    expect(kindsRankedAbove('product')).toEqual(['customer', 'quote', 'order']);
    expect(kindsRankedAbove('customer')).toEqual(['quote', 'order']);
    expect(kindsRankedAbove('quote')).toEqual(['order']);
    expect(kindsRankedAbove('order')).toEqual([]);
  });

  it('refuses a kind ranked below one already staged and allows the same kind or a higher one, for every pair', () => {
    for (const staged of entityKinds) {
      for (const entity of entityKinds) {
        const expected = entityRank[entity] < entityRank[staged];
        expect(violatesEntityOrder([staged], entity), `${entity} after ${staged}`).toBe(expected);
      }
    }
  });

  it('allows any kind into a batch that holds nothing yet', () => {
    for (const entity of entityKinds) expect(violatesEntityOrder([], entity)).toBe(false);
  });

  it('judges against the highest kind staged when several are', () => {
    expect(violatesEntityOrder(['product', 'quote'], 'customer')).toBe(true);
    expect(violatesEntityOrder(['product', 'quote'], 'quote')).toBe(false);
    expect(violatesEntityOrder(['product', 'quote'], 'order')).toBe(false);
  });
});

describe('the record cap', () => {
  it('accepts every record while the batch stays below the cap', () => {
    expect(admitRecords(10, 100, 50)).toEqual({ accepted: 50, skipped: 0 });
  });

  it('accepts every record when they bring the batch exactly to the cap', () => {
    expect(admitRecords(50, 100, 50)).toEqual({ accepted: 50, skipped: 0 });
  });

  it('skips the records past the cap, in array order', () => {
    expect(admitRecords(90, 100, 25)).toEqual({ accepted: 10, skipped: 15 });
  });

  it('skips everything once the batch is at the cap', () => {
    expect(admitRecords(100, 100, 7)).toEqual({ accepted: 0, skipped: 7 });
  });

  it('never accepts a negative number when the batch is already past the cap', () => {
    expect(admitRecords(120, 100, 7)).toEqual({ accepted: 0, skipped: 7 });
  });

  it('accepts and skips nothing when offered nothing', () => {
    expect(admitRecords(100, 100, 0)).toEqual({ accepted: 0, skipped: 0 });
    expect(admitRecords(0, 100, 0)).toEqual({ accepted: 0, skipped: 0 });
  });
});

describe('the line cap', () => {
  const caps = { records: 100, lines: 2_500 };

  it('accepts every document while the batch stays within its lines', () => {
    expect(admitCall({ recordCount: 0, lineCount: 0 }, caps, [1_000, 1_000, 500])).toEqual({ accepted: 3, skipped: 0, lines: 2_500 });
  });

  it('skips whole the document that would take the batch past its lines, and every record after it', () => {
    expect(admitCall({ recordCount: 0, lineCount: 0 }, caps, [1_000, 1_000, 1_000, 1])).toEqual({ accepted: 2, skipped: 2, lines: 2_000 });
  });

  it('counts the lines the batch already holds', () => {
    expect(admitCall({ recordCount: 2, lineCount: 2_400 }, caps, [100, 1])).toEqual({ accepted: 1, skipped: 1, lines: 100 });
  });

  it('takes records without lines whatever the batch holds', () => {
    expect(admitCall({ recordCount: 0, lineCount: 2_500 }, caps, [0, 0])).toEqual({ accepted: 2, skipped: 0, lines: 0 });
  });

  it('stops at the record cap first when it comes sooner', () => {
    expect(admitCall({ recordCount: 99, lineCount: 0 }, caps, [1, 1])).toEqual({ accepted: 1, skipped: 1, lines: 1 });
  });
});

describe('staging refusals', () => {
  const now = at(HOUR_MS);

  function refusal(result: ApiError | undefined): { code: string; status: number; param: string | undefined } | undefined {
    return result && { code: result.code, status: result.status, param: result.param };
  }

  it('takes records into an own open batch in time', () => {
    expect(stagingRefusal(batch(), 'conn-1', 'product', now)).toBeUndefined();
    expect(stagingRefusal(batch({ entities: ['product', 'customer'] }), 'conn-1', 'customer', now)).toBeUndefined();
    expect(stagingRefusal(batch({ entities: ['product'] }), 'conn-1', 'order', now)).toBeUndefined();
  });

  it('answers 404 batch_not_found for a missing batch', () => {
    const result = stagingRefusal(undefined, 'conn-1', 'product', now);
    expect(result).toBeInstanceOf(ApiError);
    expect(refusal(result)).toEqual({ code: 'batch_not_found', status: 404, param: 'batchId' });
  });

  it("answers 404 for another connector's batch, even one that would also break the entity order and is committed", () => {
    expect(isOwnBatch(batch(), 'conn-2')).toBe(false);
    expect(isOwnBatch(batch(), 'conn-1')).toBe(true);
    expect(isOwnBatch(undefined, 'conn-1')).toBe(false);
    expect(refusal(stagingRefusal(batch(), 'conn-2', 'product', now))).toEqual({ code: 'batch_not_found', status: 404, param: 'batchId' });
    const other = batch({ entities: ['order'], status: 'committed' });
    expect(refusal(stagingRefusal(other, 'conn-2', 'product', now))).toEqual({ code: 'batch_not_found', status: 404, param: 'batchId' });
  });

  it('answers 409 batch_entity_order_violation naming the kinds staged after the offered one', () => {
    const result = stagingRefusal(batch({ entities: ['product', 'quote', 'order'] }), 'conn-1', 'customer', now);
    expect(refusal(result)).toEqual({ code: 'batch_entity_order_violation', status: 409, param: 'entity' });
    expect(result?.message).toContain('already holds quote, order;');
    expect(result?.message).toContain('customer records must be staged before them');
    expect(result?.message).toContain('order: product, customer, quote, order');
  });

  it('reports an order violation before the batch not being open', () => {
    for (const status of ['committed', 'draining', 'drained', 'failed'] as const) {
      const result = stagingRefusal(batch({ status, entities: ['order'] }), 'conn-1', 'quote', now);
      expect(refusal(result), status).toEqual({ code: 'batch_entity_order_violation', status: 409, param: 'entity' });
    }
    const old = stagingRefusal(batch({ entities: ['order'] }), 'conn-1', 'quote', at(2 * DAY_MS));
    expect(old?.code).toBe('batch_entity_order_violation');
  });

  it('answers 409 batch_already_committed for a batch that is committed, draining, drained or failed', () => {
    for (const status of ['committed', 'draining', 'drained', 'failed'] satisfies BatchStatus[]) {
      const result = stagingRefusal(batch({ status }), 'conn-1', 'product', now);
      expect(refusal(result), status).toEqual({ code: 'batch_already_committed', status: 409, param: undefined });
      expect(result?.message).toContain(`The batch is ${status};`);
    }
  });

  it('answers 409 batch_already_committed for an open batch past its life, calling it failed', () => {
    expect(stagingRefusal(batch(), 'conn-1', 'product', at(OPEN_BATCH_LIFETIME_MS - 1))).toBeUndefined();
    const result = stagingRefusal(batch(), 'conn-1', 'product', at(OPEN_BATCH_LIFETIME_MS));
    expect(refusal(result)).toEqual({ code: 'batch_already_committed', status: 409, param: undefined });
    expect(result?.message).toContain('The batch is failed;');
  });
});

describe('the status view', () => {
  it('shows the counts and creation time of an open batch, and nothing it does not have', () => {
    const view = statusView(batch({ entities: ['product', 'customer'], recordCount: 12, skippedOverCap: 3, jobId: 'job-1', chunkSeq: 4 }));
    expect(view).toEqual({ status: 'open', entities: ['product', 'customer'], recordCount: 12, skippedOverCap: 3, createdAt });
  });

  it('shows when a batch was committed and drained, and how many records were drained, zero included', () => {
    const drained = batch({
      status: 'drained',
      entities: ['order'],
      recordCount: 5,
      committedAt: '2026-03-10T13:00:00.000Z',
      drainStartedAt: '2026-03-10T13:00:01.000Z',
      drainedAt: '2026-03-10T13:01:00.000Z',
      drainedCount: 5,
      drainCursor: 'CHUNK#0000000001#000',
      leaseOwner: 'drain-1',
      leaseUntil: 123,
    });
    expect(statusView(drained)).toEqual({
      status: 'drained',
      entities: ['order'],
      recordCount: 5,
      skippedOverCap: 0,
      createdAt,
      committedAt: '2026-03-10T13:00:00.000Z',
      drainedAt: '2026-03-10T13:01:00.000Z',
      drainedCount: 5,
      warnedProducts: 0,
      progressAt: '2026-03-10T13:01:00.000Z',
    });
    expect(statusView(batch({ status: 'draining', drainedCount: 0 }))).toHaveProperty('drainedCount', 0);
  });

  it('shows when the service last moved a committed batch on: the latest of its commit, its looks at its turn, checkpoints and phases', () => {
    const committed = { status: 'committed', committedAt: '2026-03-10T13:00:00.000Z' } as const;
    expect(statusView(batch(committed)).progressAt).toBe('2026-03-10T13:00:00.000Z');
    // Waiting its turn behind an earlier batch: each look at its turn moves it on.
    expect(statusView(batch({ ...committed, drainSeenAt: '2026-03-10T13:04:00.000Z' })).progressAt).toBe('2026-03-10T13:04:00.000Z');
    const banding = batch({
      ...committed,
      status: 'drained',
      drainSeenAt: '2026-03-10T13:05:00.000Z',
      drainedAt: '2026-03-10T13:09:00.000Z',
      pricesFreshAt: '2026-03-10T13:10:00.000Z',
      progressAt: '2026-03-10T13:12:30.000Z',
    });
    expect(statusView(banding).progressAt).toBe('2026-03-10T13:12:30.000Z');
    expect(statusView(batch({ ...committed, status: 'open', progressAt: '2026-03-10T13:12:30.000Z' }))).not.toHaveProperty('progressAt');
  });

  it('counts the products the drain left with data warnings beside the records drained', () => {
    const drained = batch({ status: 'drained', recordCount: 3, drainedCount: 3, warnedProducts: 2, drainedAt: '2026-03-10T13:01:00.000Z' });
    expect(statusView(drained)).toMatchObject({ drainedCount: 3, warnedProducts: 2 });
    expect(statusView(batch({ status: 'open' }))).not.toHaveProperty('warnedProducts');
  });

  it('shows the error of a failed batch', () => {
    const failed = expired(batch(), at(2 * DAY_MS));
    expect(statusView(failed)).toEqual({
      status: 'failed',
      entities: [],
      recordCount: 0,
      skippedOverCap: 0,
      createdAt,
      error: EXPIRED_ERROR,
    });
  });

  it('hides an error left on a batch that has not failed', () => {
    expect(statusView(batch({ status: 'committed', error: 'stale' }))).not.toHaveProperty('error');
  });
});

describe('the batch schema', () => {
  const stored = {
    batchId,
    workspaceId: 'ws-1',
    connectorId: 'conn-1',
    status: 'open',
    recordCount: 0,
    skippedOverCap: 0,
    createdAt,
  };

  it('reads entities stored as a set in rank order', () => {
    const parsed = v.parse(BatchSchema, { ...stored, entities: new Set<EntityKind>(['order', 'product', 'quote', 'customer']) });
    expect(parsed.entities).toEqual(['product', 'customer', 'quote', 'order']);
  });

  it('reads entities stored as a list in rank order', () => {
    expect(v.parse(BatchSchema, { ...stored, entities: ['quote', 'customer'] }).entities).toEqual(['customer', 'quote']);
  });

  it('reads missing entities as none and a missing chunk sequence as 0', () => {
    const parsed = v.parse(BatchSchema, stored);
    expect(parsed.entities).toEqual([]);
    expect(parsed.chunkSeq).toBe(0);
  });

  it('refuses an unknown entity kind, an unknown status and a fractional count', () => {
    expect(v.safeParse(BatchSchema, { ...stored, entities: new Set(['product', 'invoice']) }).success).toBe(false);
    expect(v.safeParse(BatchSchema, { ...stored, status: 'closed' }).success).toBe(false);
    expect(v.safeParse(BatchSchema, { ...stored, recordCount: 1.5 }).success).toBe(false);
  });

  it('takes a UUID as a batch id and refuses anything else', () => {
    expect(v.safeParse(BatchIdSchema, batchId).success).toBe(true);
    for (const input of ['', 'batch-1', `${batchId}x`, batchId.replaceAll('-', ''), 42, undefined]) {
      expect(v.safeParse(BatchIdSchema, input).success, String(input)).toBe(false);
    }
    expect(v.safeParse(BatchIdSchema, 42).issues?.[0]?.message).toBe('a batch id (a UUID)');
  });
});
