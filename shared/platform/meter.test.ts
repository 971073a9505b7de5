// Unit tests of the per-request capacity ledger.
import { describe, expect, it } from 'vitest';
import { CapacityLedger, currentLedger, withCapacityLedger } from './meter.ts';

describe('the capacity ledger', () => {
  it('follows the async context of its request, so that concurrent requests are charged apart', async () => {
    const first = new CapacityLedger();
    const second = new CapacityLedger();
    await Promise.all([
      withCapacityLedger(first, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        currentLedger()?.add('read', 0.5);
      }),
      withCapacityLedger(second, async () => {
        currentLedger()?.add('write', 2);
      }),
    ]);
    expect([first.readUnits, first.writeUnits, second.readUnits, second.writeUnits]).toEqual([0.5, 0, 0, 2]);
    expect(currentLedger()).toBeUndefined();
  });
});
