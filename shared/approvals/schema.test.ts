// Unit tests of the approval body: a SKU within the identifier bound and a positive finite price.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseInput } from '#platform/input.ts';
import { thrownApiError } from '#test/support/thrown.ts';
import { ApproveRequestSchema } from './schema.ts';

describe('the approval body', () => {
  it('takes a SKU of up to 255 characters, and refuses a longer one, naming sku', () => {
    expect(v.parse(ApproveRequestSchema, { sku: 'é'.repeat(255), price: 1 })).toEqual({ sku: 'é'.repeat(255), price: 1 });
    expect(thrownApiError(() => parseInput(ApproveRequestSchema, { sku: 'S'.repeat(2000), price: 1 }))).toMatchObject({
      code: 'invalid_request',
      param: 'sku',
      message: 'Invalid sku: a non-empty string of at most 255 characters.',
    });
  });
});
