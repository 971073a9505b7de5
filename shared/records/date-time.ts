// Date-times of canonical records: the strict RFC 3339 shape the contract accepts, and its instant in epoch milliseconds.
import * as v from 'valibot';

// Every part is fixed-width except the fraction; range and calendar checks follow in code, where they can be exact.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date, by whole-era arithmetic (Hinnant's days_from_civil), so that
 * no year is reinterpreted the way Date.UTC maps 0..99 onto 1900..1999.
 */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The instant a contract date-time names, in epoch milliseconds (any fraction beyond milliseconds is cut off), or undefined. */
export function parseDateTime(text: string): number | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fraction, sign, offsetHourText, offsetMinuteText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText ?? '0');
  const offsetHour = Number(offsetHourText ?? '0');
  const offsetMinute = Number(offsetMinuteText ?? '0');
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return undefined;
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const offset = (sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute) * MINUTE_MS;
  const local = daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return local - offset;
}

const DATE_TIME_MESSAGE = 'a date-time such as 2024-02-29T13:45:00Z (calendar date, T, HH:MM[:SS[.fraction]], and Z or ±HH:MM)';

/** Pipe after `v.string()` wherever the contract says date-time; the value stays the caller's text. */
export function dateTime() {
  return v.check<string, string>((text) => parseDateTime(text) !== undefined, DATE_TIME_MESSAGE);
}
