// Unit tests of the Idempotency-Key header: required on the price call, optional where a creating route opts in.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { readIdempotencyKey, readOptionalIdempotencyKey } from './key.ts';
import { thrownApiError } from '#test/support/thrown.ts';

function event(headers: Record<string, string> | undefined): APIGatewayProxyEventV2 {
  return { headers, body: '{}', isBase64Encoded: false } as unknown as APIGatewayProxyEventV2;
}

describe('the Idempotency-Key header', () => {
  it('is read from the lowercased header, as API Gateway delivers it', () => {
    expect(readIdempotencyKey(event({ 'idempotency-key': 'order-42/attempt' }))).toBe('order-42/attempt');
  });

  it('is required: a missing header, or a request with no headers at all, is refused', () => {
    const requests: Array<Record<string, string> | undefined> = [{}, undefined, { 'x-other': 'value' }];
    for (const headers of requests) {
      expect(thrownApiError(() => readIdempotencyKey(event(headers)))).toMatchObject({
        code: 'invalid_request',
        status: 422,
        param: 'Idempotency-Key',
        message: 'The Idempotency-Key header is required: send a unique key per logical request, and the same key on retries.',
      });
    }
  });

  it('refuses an empty header as missing rather than taking it as a key', () => {
    expect(thrownApiError(() => readIdempotencyKey(event({ 'idempotency-key': '' }))).message).toBe(
      'The Idempotency-Key header is required: send a unique key per logical request, and the same key on retries.',
    );
  });

  it('accepts up to 255 characters and refuses 256', () => {
    expect(readIdempotencyKey(event({ 'idempotency-key': 'k'.repeat(255) }))).toBe('k'.repeat(255));
    expect(thrownApiError(() => readIdempotencyKey(event({ 'idempotency-key': 'k'.repeat(256) })))).toMatchObject({
      code: 'invalid_request',
      param: 'Idempotency-Key',
      message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
    });
  });

  it('accepts every printable ASCII character, space and tilde included', () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, index) => String.fromCharCode(0x20 + index)).join('');
    expect(readIdempotencyKey(event({ 'idempotency-key': printable }))).toBe(printable);
  });

  it('refuses control characters and anything outside ASCII', () => {
    for (const key of ['tab\there', 'line\nbreak', 'del\x7f', 'clé', 'emoji🙂']) {
      expect(thrownApiError(() => readIdempotencyKey(event({ 'idempotency-key': key })))).toMatchObject({
        param: 'Idempotency-Key',
        message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      });
    }
  });
});

describe('the optional Idempotency-Key header', () => {
  it('is absent without the header, so the call runs as one without a key', () => {
    expect(readOptionalIdempotencyKey(event({}))).toBeUndefined();
    expect(readOptionalIdempotencyKey(event(undefined))).toBeUndefined();
  });

  it('is read as the required one is when it is sent', () => {
    expect(readOptionalIdempotencyKey(event({ 'idempotency-key': 'approve-42' }))).toBe('approve-42');
  });

  it('refuses a header sent empty, too long or not printable ASCII, rather than run the call unprotected', () => {
    for (const key of ['', 'k'.repeat(256), 'clé', 'tab\there']) {
      expect(thrownApiError(() => readOptionalIdempotencyKey(event({ 'idempotency-key': key })))).toMatchObject({
        code: 'invalid_request',
        param: 'Idempotency-Key',
        message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      });
    }
  });
});
