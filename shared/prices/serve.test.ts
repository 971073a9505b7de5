// Unit tests of a price call's pure parts: the deadline it gives up at and what its key is bound to.
import { describe, expect, it } from 'vitest';
import { OutOfTime, requestHash, withinDeadline } from './serve.ts';

describe('giving a call up before its deadline', () => {
  it('hands back the work when it ends in time', async () => {
    await expect(withinDeadline(Promise.resolve('priced'), 1_000)).resolves.toBe('priced');
  });

  it('gives up with OutOfTime once the budget is spent, without waiting for the work', async () => {
    const never = new Promise<string>(() => undefined);
    await expect(withinDeadline(never, 10)).rejects.toBeInstanceOf(OutOfTime);
  });

  it('gives up at once when no budget is left', async () => {
    const slow = new Promise<string>((resolve) => setTimeout(() => resolve('late'), 50));
    await expect(withinDeadline(slow, -500)).rejects.toBeInstanceOf(OutOfTime);
  });

  it('passes the work’s own failure through', async () => {
    await expect(withinDeadline(Promise.reject(new Error('read failed')), 1_000)).rejects.toThrow('read failed');
  });
});

describe('what a key is bound to', () => {
  const request = { lines: [{ productSku: 'BOLT', quantity: 1 }] };

  it('is the same for the same body and audience', () => {
    expect(requestHash('erp', request)).toBe(requestHash('erp', structuredClone(request)));
  });

  it('differs between an erp and a storefront caller of the same body', () => {
    expect(requestHash('erp', request)).not.toBe(requestHash('storefront', request));
  });
});
