// How long a failed webhook attempt waits before the next: apart from the attempt itself, so that what only needs the schedule bundles no transport.
import { environmentNames, positiveNumber } from '#platform/config.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The waits between attempts: the first attempt goes at once, and each failure waits the next entry. Twelve attempts
 * over 71 h 35 min, about three days; after the last failure the delivery is parked and the endpoint marked failing.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  12 * HOUR,
  12 * HOUR,
];

/** The schedule as this process runs it: local mode and tests may scale it down (WEBHOOK_RETRY_SCALE). */
export function retrySchedule(): number[] {
  const scale = positiveNumber(process.env[environmentNames.webhookRetryScale]) ?? 1;
  return RETRY_SCHEDULE_MS.map((wait) => Math.round(wait * scale));
}
