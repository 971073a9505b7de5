// A price call's body: its lines, checked before anything is read or written (the Idempotency-Key header is shared/idempotency/key.ts).
import * as v from 'valibot';
import { boundedArray } from '#platform/input.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { SAFE_INT_MAX } from '#shared/records/schema.ts';

export const MAX_LINES_PER_CALL = 100;
const MAX_QUANTITY = 1_000_000_000;

const quantity = (name: string) =>
  v.pipe(
    v.number(`a number greater than 0 and at most ${MAX_QUANTITY.toLocaleString('en-US')}`),
    v.finite(`a finite number`),
    v.gtValue(0, `${name} must be greater than 0`),
    v.maxValue(MAX_QUANTITY, `${name} must be at most ${MAX_QUANTITY.toLocaleString('en-US')}`),
  );

export const PriceRequestLineSchema = v.pipe(
  v.strictObject({
    customerId: v.optional(IdentifierSchema),
    customerExternalId: v.optional(IdentifierSchema),
    productSku: v.optional(IdentifierSchema),
    productExternalId: v.optional(IdentifierSchema),
    quantity: quantity('quantity'),
    orderValueCents: v.optional(
      v.pipe(
        v.number('a number from 0 to 9007199254740991'),
        v.finite('a finite number'),
        v.minValue(0, 'orderValueCents must be at least 0'),
        v.maxValue(SAFE_INT_MAX, 'orderValueCents must be at most 9007199254740991'),
      ),
    ),
    orderTotalQuantity: v.optional(quantity('orderTotalQuantity')),
  }),
  v.forward(
    v.partialCheck(
      [['productSku'], ['productExternalId']],
      (line) => line.productSku !== undefined || line.productExternalId !== undefined,
      'a line needs productSku or productExternalId',
    ),
    ['productSku'],
  ),
);
export type PriceRequestLine = v.InferOutput<typeof PriceRequestLineSchema>;

export const PriceRequestSchema = v.strictObject({
  lines: boundedArray(
    PriceRequestLineSchema,
    'an array of price request lines',
    [1, `from 1 to ${MAX_LINES_PER_CALL} lines`],
    [MAX_LINES_PER_CALL, `from 1 to ${MAX_LINES_PER_CALL} lines`],
  ),
});
export type PriceRequest = v.InferOutput<typeof PriceRequestSchema>;
