import { describe, expect, it } from 'vitest';
import { sumAggregates } from './repository.ts';

describe('reading the adherence aggregates', () => {
  it("adds up one group and month's counters across the shards and the older partition, and keeps its other fields", () => {
    const summed = sumAggregates([
      { PK: 'WS#w#ADHERENCE#03', SK: 'overall#2026-11#', dimension: 'overall', within_n: 2, won_w: 1, m_bt_a: 'CHUNK#2' },
      { PK: 'WS#w#ADHERENCE', SK: 'overall#2026-11#', dimension: 'overall', within_n: 5, above_n: 1 },
      { PK: 'WS#w#ADHERENCE#01', SK: 'category#2026-11#Fasteners', dimension: 'category', within_n: 1 },
    ]);
    expect(summed).toEqual([
      { PK: 'WS#w#ADHERENCE#01', SK: 'category#2026-11#Fasteners', dimension: 'category', within_n: 1 },
      { PK: 'WS#w#ADHERENCE#03', SK: 'overall#2026-11#', dimension: 'overall', within_n: 7, won_w: 1, above_n: 1, m_bt_a: 'CHUNK#2' },
    ]);
  });
});
