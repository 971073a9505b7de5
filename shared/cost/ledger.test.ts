// Unit tests of what the cost ledger counts for a request or job, and how little its item weighs.
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { CapacityLedger } from '#platform/meter.ts';
import { itemSize } from '#platform/table/capacity.ts';
import { keys } from '#platform/table/keys.ts';
import { costCounters } from './counts.ts';
import { memoryOf } from '#edge/routes.ts';
import { chargeWork, countsOf, meteredApiRequests, pendingCosts } from './ledger.ts';

function capacity(values: Partial<CapacityLedger>): CapacityLedger {
  return Object.assign(new CapacityLedger(), values);
}

describe('the cost ledger', () => {
  it('counts a request with its units, its status class, its lines and its GB-seconds at the route’s memory', () => {
    const counts = countsOf({
      workspaceId: 'ws_1',
      route: 'priceLines',
      nowMs: 0,
      status: 429,
      capacity: capacity({ readUnits: 59.5, writeUnits: 9, pricedLines: 100, queueRequests: 0 }),
      durationMs: 30.2,
      apiRequests: 1,
      memoryMb: 1024,
    });
    expect(counts).toMatchObject({ requests: 1, status4xx: 1, status2xx: 0, readUnits: 59.5, writeUnits: 9, pricedLines: 100 });
    expect(counts.lambdaMbMs).toBe(31 * 1024);
  });

  it('runs the drain’s and the bands job’s work at the drain worker’s memory', () => {
    expect(memoryOf('bands')).toBe(memoryOf('drain'));
    expect(memoryOf('getUsage')).toBe(256);
  });

  it('meters API Gateway requests per started 512 KB of request and response', () => {
    expect(meteredApiRequests(0, 0)).toBe(1);
    expect(meteredApiRequests(300 * 1024, 300 * 1024)).toBe(2);
  });

  it('adds the work of one workspace, day and route into one pending item', () => {
    const before = pendingCosts().length;
    const work = {
      workspaceId: 'ws_pending',
      route: 'getPrice',
      status: 200,
      capacity: capacity({ readUnits: 0.5 }),
      durationMs: 3,
      apiRequests: 1,
    };
    chargeWork({ ...work, nowMs: Date.parse('2026-11-24T10:00:00Z') });
    chargeWork({ ...work, nowMs: Date.parse('2026-11-24T23:59:59Z') });
    chargeWork({ ...work, nowMs: Date.parse('2026-11-25T00:00:00Z') });
    const mine = pendingCosts().filter((item) => item.workspaceId === 'ws_pending');
    expect(pendingCosts().length - before).toBe(2);
    expect(mine.map((item) => [item.day, item.counts.requests, item.counts.readUnits])).toEqual([
      ['2026-11-24', 2, 1],
      ['2026-11-25', 1, 0.5],
    ]);
  });

  it('keeps its item under 1 KB at its largest, so that each flush costs one write unit', () => {
    const largest = Object.fromEntries(costCounters.map((counter) => [counter, 123_456_789_012.345]));
    const item = {
      ...keys.costLedger('w'.repeat(40), '2026-11-24', 'extendWriteback'),
      ...largest,
      expiresAt: 1_800_000_000,
      workspaceId: 'w'.repeat(40),
      day: '2026-11-24',
      route: 'extendWriteback',
    };
    expect(itemSize(marshall(item))).toBeLessThan(1024);
  });
});
