// Paged lists, one way for every list the API answers: `limit`, an opaque `starting_after` cursor, and `next` (the reads are table/query.ts's queryListPage).
import * as v from 'valibot';
import { ApiError } from './errors.ts';

/** A cursor as the documents give it: base64url of a place in a list, never longer than any place the service hands out. */
export const PageCursorSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,200}$/));

/** The documents' form of a page's `limit`, which `readPageLimit` checks on the query's text. */
export function pageLimitSchema(max: number) {
  return v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));
}

export interface PageBounds {
  readonly default: number;
  readonly max: number;
}

/** A query's `limit`, digits only (no sign, exponent, space or fraction), from 1 to the list's most; its default when absent. */
export function readPageLimit(text: string | undefined, bounds: PageBounds): number {
  if (text === undefined) return bounds.default;
  const limit = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(limit >= 1 && limit <= bounds.max)) {
    throw new ApiError('invalid_request', `limit must be a whole number from 1 to ${bounds.max}.`, { param: 'limit' });
  }
  return limit;
}

/** A place in a list (the sort key past the list's own prefix) as the opaque `next` a page answers. */
export function encodeCursor(position: string): string {
  return Buffer.from(position, 'utf8').toString('base64url');
}

/**
 * The place a `starting_after` names. A cursor the service did not hand out (its place not of the list's `pattern`) is
 * refused, so that a page can start nowhere but at an item's place.
 */
export function decodeCursor(cursor: string, pattern: RegExp): string {
  const position = v.is(PageCursorSchema, cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!pattern.test(position)) {
    throw new ApiError('invalid_request', 'starting_after must be the next cursor of an earlier page.', { param: 'starting_after' });
  }
  return position;
}
