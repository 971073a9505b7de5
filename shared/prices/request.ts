// A price call's input: the body's lines and the Idempotency-Key header, checked before anything is read or written.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { boundedArray } from '#platform/input.ts';
import { IdentifierSchema, MAX_IDENTIFIER_LENGTH } from '#shared/records/identifier.ts';
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

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * 1 to 255 printable ASCII characters, the bound of every identifier the caller names; an absent or empty header is
 * refused, never taken as a key.
 */
export function readIdempotencyKey(event: APIGatewayProxyEventV2): string {
  const value = event.headers?.[IDEMPOTENCY_HEADER.toLowerCase()];
  if (value === undefined || value === '') {
    throw new ApiError(
      'invalid_request',
      'The Idempotency-Key header is required: send a unique key per logical request, and the same key on retries.',
      {
        param: IDEMPOTENCY_HEADER,
      },
    );
  }
  // ASCII only, so its length in code units is its length in characters.
  if (value.length > MAX_IDENTIFIER_LENGTH || !/^[\x20-\x7e]+$/.test(value)) {
    throw new ApiError('invalid_request', `The Idempotency-Key header must be 1 to ${MAX_IDENTIFIER_LENGTH} printable ASCII characters.`, {
      param: IDEMPOTENCY_HEADER,
    });
  }
  return value;
}
