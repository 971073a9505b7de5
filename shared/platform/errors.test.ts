// Unit tests of the error codes, their statuses and the two envelopes.
import { describe, expect, it } from 'vitest';
import { ApiError, quoted, errorResponse, errorStatuses, internalError } from './errors.ts';

describe('errors', () => {
  it('gives each code the status the contract assigns it', () => {
    expect(errorStatuses).toMatchObject({
      unauthorized: 401,
      forbidden: 403,
      feature_not_enabled: 403,
      subscription_inactive: 402,
      rate_limited: 429,
      monthly_volume_exceeded: 429,
      invalid_json: 422,
      invalid_request: 422,
      entity_not_supported: 422,
      idempotency_key_reused: 422,
      idempotency_key_in_flight: 409,
      batch_not_found: 404,
      batch_already_committed: 409,
      batch_entity_order_violation: 409,
      writeback_lease_expired: 409,
      internal_error: 500,
    });
  });

  it('answers in the v1 envelope with code, message, param and requestId, and the request id header', () => {
    const response = errorResponse(new ApiError('invalid_request', 'Invalid quantity.', { param: 'lines[3].quantity' }), 'req-1', 'v1');
    expect(response.statusCode).toBe(422);
    expect(response.headers).toMatchObject({ 'content-type': 'application/json', 'x-request-id': 'req-1' });
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'invalid_request', message: 'Invalid quantity.', param: 'lines[3].quantity', requestId: 'req-1' },
    });
  });

  it('leaves param out of the v1 envelope when no single input is at fault', () => {
    const body = JSON.parse(errorResponse(new ApiError('unauthorized', 'No key.'), 'req-2', 'v1').body);
    expect(body.error).not.toHaveProperty('param');
  });

  it('answers in the overview envelope with request_id, and speaks bad_request and server_error there', () => {
    const invalid = errorResponse(new ApiError('invalid_request', 'price must be positive', { param: 'price' }), 'req-3', 'overview');
    expect(invalid.statusCode).toBe(400);
    expect(JSON.parse(invalid.body)).toEqual({ error: { code: 'bad_request', message: 'price must be positive', request_id: 'req-3' } });

    const fault = errorResponse(internalError(), 'req-4', 'overview');
    expect(fault.statusCode).toBe(500);
    expect(JSON.parse(fault.body).error.code).toBe('server_error');

    const rateLimited = errorResponse(new ApiError('rate_limited', 'Slow down.', { headers: { 'retry-after': '1' } }), 'req-5', 'overview');
    expect(rateLimited.statusCode).toBe(429);
    expect(rateLimited.headers['retry-after']).toBe('1');
  });

  it('lets a route give a code another status where the contract says so', () => {
    expect(new ApiError('invalid_request', 'No route.', { status: 404 }).status).toBe(404);
  });

  it('says nothing internal in an internal error', () => {
    expect(internalError().message).not.toMatch(/dynamo|table|stack|exception/i);
  });

  it('quotes caller text whole when short, and cut with an ellipsis past 64 characters', () => {
    expect(quoted('rationale,x')).toBe('"rationale,x"');
    expect(quoted('x'.repeat(8_000))).toBe(`"${'x'.repeat(64)}…"`);
    expect(quoted('😀'.repeat(70))).toBe(`"${'😀'.repeat(64)}…"`);
  });
});
