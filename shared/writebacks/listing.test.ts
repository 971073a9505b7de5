// Unit tests of what the console lists of a connector's tasks: the failures that still stand for their SKU.
import { describe, expect, it } from 'vitest';
import { standingFailures } from './listing.ts';

const task = (productSku: string, status: 'pending' | 'failed' | 'applied' | 'cancelled', createdAt: string) => ({
  productSku,
  status,
  createdAt,
});

describe('the failures that still stand', () => {
  it('keeps a failed task that is the newest of its SKU', () => {
    const failed = task('PUMP', 'failed', '2026-12-01T10:00:00.000Z');
    expect(standingFailures([task('VALVE', 'applied', '2026-12-01T11:00:00.000Z'), failed])).toEqual([failed]);
  });

  it('drops a failed task once a later task of its SKU follows it, whatever that task became', () => {
    for (const status of ['pending', 'applied', 'failed', 'cancelled'] as const) {
      const later = task('PUMP', status, '2026-12-01T12:00:00.000Z');
      const shown = standingFailures([later, task('PUMP', 'failed', '2026-12-01T10:00:00.000Z')]);
      expect(shown).toEqual(status === 'failed' ? [later] : []);
    }
  });
});
