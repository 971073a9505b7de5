// A workspace's usage: the month it counts in, and the two refusals of its limits (the per-second rate in ./rate.ts, the monthly quota in ./quota.ts).
import { ApiError } from '#platform/errors.ts';
import type { Workspace } from './schema.ts';

/** Usage items outlive their month by 400 days, for finance to read back. */
const USAGE_RETENTION_DAYS = 400;

/** The calendar month (UTC) a moment belongs to, as YYYY-MM. */
export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

export function usageExpiry(nowMs: number): number {
  const date = new Date(nowMs);
  const monthEnd = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  return Math.floor(monthEnd / 1000) + USAGE_RETENTION_DAYS * 86_400;
}

export function rateLimited(limit: number): ApiError {
  return new ApiError('rate_limited', `This workspace is limited to ${limit} requests per second. Retry after the Retry-After delay.`, {
    headers: { 'Retry-After': '1' },
  });
}

export function monthlyVolumeExceeded(workspace: Pick<Workspace, 'monthlyLines'>, nowMs: number): ApiError {
  const date = new Date(nowMs);
  const secondsToMonthEnd = Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - nowMs) / 1000);
  return new ApiError(
    'monthly_volume_exceeded',
    `This call would take the workspace past its ${workspace.monthlyLines.toLocaleString('en-US')} priced lines for ${monthOf(nowMs)}; nothing in it was priced.`,
    { headers: { 'Retry-After': String(secondsToMonthEnd) } },
  );
}
