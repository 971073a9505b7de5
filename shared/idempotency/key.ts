// The Idempotency-Key header: required by the price call, optional on the creating routes that opt in; checked before anything is read or written.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiError } from '#platform/errors.ts';
import { MAX_IDENTIFIER_LENGTH } from '#shared/records/identifier.ts';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

function malformed(): ApiError {
  return new ApiError(
    'invalid_request',
    `The ${IDEMPOTENCY_HEADER} header must be 1 to ${MAX_IDENTIFIER_LENGTH} printable ASCII characters.`,
    {
      param: IDEMPOTENCY_HEADER,
    },
  );
}

function checked(value: string): string {
  // ASCII only, so its length in code units is its length in characters.
  if (value.length > MAX_IDENTIFIER_LENGTH || !/^[\x20-\x7e]+$/.test(value)) throw malformed();
  return value;
}

/**
 * 1 to 255 printable ASCII characters, the bound of every identifier the caller names; an absent or empty header is
 * refused, never taken as a key.
 */
export function readIdempotencyKey(event: APIGatewayProxyEventV2): string {
  const value = event.headers?.[IDEMPOTENCY_HEADER.toLowerCase()];
  if (value === undefined || value === '') {
    throw new ApiError(
      'invalid_request',
      `The ${IDEMPOTENCY_HEADER} header is required: send a unique key per logical request, and the same key on retries.`,
      { param: IDEMPOTENCY_HEADER },
    );
  }
  return checked(value);
}

/**
 * The key of a route where it is optional: undefined without the header, so the call runs as it always did. A header
 * sent empty is refused as malformed: a client that means to send a key and sends none would lose its protection unseen.
 */
export function readOptionalIdempotencyKey(event: APIGatewayProxyEventV2): string | undefined {
  const value = event.headers?.[IDEMPOTENCY_HEADER.toLowerCase()];
  return value === undefined ? undefined : checked(value);
}
