// Unit tests of usage's pure parts: the UTC month a moment counts in, and the two 429 answers with their Retry-After.
import { describe, expect, it } from 'vitest';
import { ApiError } from '#platform/errors.ts';
import { monthlyVolumeExceeded, monthOf, rateLimited } from './usage.ts';

describe('the month a moment counts in', () => {
  it('is the UTC calendar month, as YYYY-MM', () => {
    expect(monthOf(Date.UTC(2026, 2, 15, 12))).toBe('2026-03');
  });

  it('changes exactly at midnight UTC on the first of the month', () => {
    expect(monthOf(Date.UTC(2026, 3, 1) - 1)).toBe('2026-03');
    expect(monthOf(Date.UTC(2026, 3, 1))).toBe('2026-04');
  });

  it('changes year at midnight UTC on the first of January', () => {
    expect(monthOf(Date.UTC(2026, 0, 1) - 1)).toBe('2025-12');
    expect(monthOf(Date.UTC(2026, 0, 1))).toBe('2026-01');
  });

  it('follows UTC, not the offset of a local time', () => {
    // 23:30 on 31 January in New York is already February in UTC.
    expect(monthOf(Date.parse('2026-01-31T23:30:00-05:00'))).toBe('2026-02');
  });
});

describe('a spent monthly volume', () => {
  const workspace = { monthlyLines: 1_000_000 };

  it('is monthly_volume_exceeded, 429, naming the quota and the month', () => {
    const error = monthlyVolumeExceeded(workspace, Date.UTC(2026, 1, 10));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('monthly_volume_exceeded');
    expect(error.status).toBe(429);
    expect(error.param).toBeUndefined();
    expect(error.message).toBe('This call would take the workspace past its 1,000,000 priced lines for 2026-02; nothing in it was priced.');
  });

  it('says to retry when the next UTC month starts', () => {
    expect(monthlyVolumeExceeded(workspace, Date.UTC(2026, 1, 28, 23)).headers).toEqual({ 'Retry-After': '3600' });
  });

  it('counts a whole month from the first moment of one', () => {
    expect(monthlyVolumeExceeded(workspace, Date.UTC(2026, 3, 1)).headers['Retry-After']).toBe(String(30 * 86_400));
  });

  it('counts into January from December', () => {
    const error = monthlyVolumeExceeded(workspace, Date.UTC(2025, 11, 31, 12));
    expect(error.headers['Retry-After']).toBe(String(12 * 3600));
    expect(error.message).toContain('for 2025-12;');
  });

  it('rounds a part of a second up, so that a retry never comes early', () => {
    expect(monthlyVolumeExceeded(workspace, Date.UTC(2026, 4, 1) - 500).headers['Retry-After']).toBe('1');
    expect(monthlyVolumeExceeded(workspace, Date.UTC(2026, 4, 1) - 1500).headers['Retry-After']).toBe('2');
  });
});

describe('a rate-limited request', () => {
  it('is rate_limited, 429, naming the limit, with a Retry-After of one second', () => {
    const error = rateLimited(50);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error.message).toBe('This workspace is limited to 50 requests per second. Retry after the Retry-After delay.');
  });
});
