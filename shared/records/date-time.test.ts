// Unit tests of contract date-times: which texts are accepted, and the instant each one names.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { dateTime, parseDateTime } from './date-time.ts';

function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

describe('parseDateTime', () => {
  it.each([
    ['2024-02-29T00:00Z', 'a leap year divisible by 4'],
    ['2000-02-29T00:00Z', 'a century divisible by 400'],
  ])('accepts the leap day %s (%s)', (text) => {
    expect(parseDateTime(text)).toBeTypeOf('number');
  });

  it.each([
    ['2023-02-29T00:00Z', 'a common year'],
    ['1900-02-29T00:00Z', 'a century not divisible by 400'],
  ])('refuses the leap day %s (%s)', (text) => {
    expect(parseDateTime(text)).toBeUndefined();
  });

  it('refuses days and months the calendar does not have', () => {
    for (const text of ['2024-04-31T00:00Z', '2024-13-01T00:00Z', '2024-00-10T00:00Z', '2024-01-00T00:00Z', '2024-01-32T00:00Z']) {
      expect(parseDateTime(text), text).toBeUndefined();
    }
  });

  it('reads a UTC date-time as that instant', () => {
    expect(parseDateTime('2024-02-29T13:45:00Z')).toBe(Date.UTC(2024, 1, 29, 13, 45, 0));
  });

  it('takes the time without seconds', () => {
    expect(parseDateTime('2024-02-29T13:45Z')).toBe(Date.UTC(2024, 1, 29, 13, 45));
  });

  it('moves a positive or negative offset back to UTC', () => {
    expect(parseDateTime('2024-03-01T05:30:00+05:30')).toBe(Date.UTC(2024, 2, 1, 0, 0));
    expect(parseDateTime('2024-02-29T16:00:00-08:00')).toBe(Date.UTC(2024, 2, 1, 0, 0));
    expect(parseDateTime('2024-02-29T16:00:00-00:00')).toBe(Date.UTC(2024, 1, 29, 16, 0));
  });

  it('accepts the widest offsets and refuses anything beyond them', () => {
    expect(parseDateTime('2024-01-01T00:00+23:59')).toBe(Date.UTC(2023, 11, 31, 0, 1));
    expect(parseDateTime('2024-01-01T00:00+24:00')).toBeUndefined();
    expect(parseDateTime('2024-01-01T00:00+05:60')).toBeUndefined();
  });

  it.each([
    ['2024-02-29T13:45:00', 'no zone'],
    ['2024-02-29T13:45:00+5:30', 'a one-digit offset hour'],
    ['2024-02-29T13:45:00+0530', 'an offset without a colon'],
    ['2024-02-29T13:45:00+05', 'an offset without minutes'],
    ['2024-02-29T24:00:00Z', 'hour 24'],
    ['2024-02-29T23:60:00Z', 'minute 60'],
    ['2024-02-29T23:59:60Z', 'a leap second'],
    ['2024-02-2913:45:00Z', 'no T'],
    ['2024-02-29 13:45:00Z', 'a space for T'],
    ['2024-02-29t13:45:00Z', 'a lowercase t'],
    ['2024-02-29T13:45:00z', 'a lowercase z'],
    ['2024-02-29T13:45.5Z', 'a fraction without seconds'],
    ['2024-02-29T13:45:00.Z', 'a fraction without digits'],
    ['2024-02-29', 'a date alone'],
    ['24-02-29T13:45:00Z', 'a two-digit year'],
    ['2024-2-29T13:45:00Z', 'a one-digit month'],
    ['2024-02-29T1:45:00Z', 'a one-digit hour'],
    [' 2024-02-29T13:45:00Z', 'leading space'],
    ['2024-02-29T13:45:00Z ', 'trailing space'],
    ['', 'nothing'],
  ])('refuses %j (%s)', (text) => {
    expect(parseDateTime(text)).toBeUndefined();
  });

  it('keeps a fraction to the millisecond and cuts off the rest', () => {
    expect(parseDateTime('2024-02-29T13:45:00.5Z')).toBe(Date.UTC(2024, 1, 29, 13, 45, 0, 500));
    expect(parseDateTime('2024-02-29T13:45:00.123456Z')).toBe(Date.UTC(2024, 1, 29, 13, 45, 0, 123));
    expect(parseDateTime('2024-02-29T13:45:00.999999999Z')).toBe(Date.UTC(2024, 1, 29, 13, 45, 0, 999));
  });

  it('reads years below 100 as themselves, not as 19xx', () => {
    expect(parseDateTime('0099-12-31T23:59:59Z')).toBe(utc(99, 12, 31, 23, 59, 59));
    expect(parseDateTime('0004-02-29T00:00Z')).toBe(utc(4, 2, 29));
    expect(parseDateTime('0000-02-29T12:00+01:00')).toBe(utc(0, 2, 29, 11));
    expect(parseDateTime('0001-01-01T00:00Z')).toBe(-62_135_596_800_000);
  });

  it('agrees with Date across the range of four-digit years', () => {
    for (const text of ['1970-01-01T00:00:00Z', '1969-12-31T23:59:59.999Z', '1600-03-01T00:00Z', '9999-12-31T23:59:59.999Z']) {
      expect(parseDateTime(text), text).toBe(Date.parse(text));
    }
  });
});

describe('dateTime', () => {
  const Schema = v.pipe(v.string(), dateTime());

  it('lets a valid date-time through unchanged', () => {
    expect(v.parse(Schema, '2024-02-29T13:45:00.123456+05:30')).toBe('2024-02-29T13:45:00.123456+05:30');
  });

  it('explains the expected shape when the text is not a date-time', () => {
    const result = v.safeParse(Schema, '2023-02-29T13:45:00Z');
    expect(result.issues?.[0]?.message).toBe(
      'a date-time such as 2024-02-29T13:45:00Z (calendar date, T, HH:MM[:SS[.fraction]], and Z or ±HH:MM)',
    );
  });
});
