// A workspace's usage: the per-second request rates of /api/v1 and of the overview, and the month's priced lines, one counter item per month.
import { ApiError } from '#platform/errors.ts';
import { currentLedger } from '#platform/meter.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { Workspace } from './schema.ts';

/** Usage items outlive their month by 400 days, for finance to read back. */
const USAGE_RETENTION_DAYS = 400;

/** The calendar month (UTC) a moment belongs to, as YYYY-MM. */
export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

function usageExpiry(nowMs: number): number {
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

/** Each surface has its own rate and its own window in the usage item. */
export type RateMeter = 'api' | 'overview';

const meters = {
  api: { second: 'rateSecond', count: 'rateCount', limit: (workspace: RateLimits) => workspace.rateLimit },
  overview: { second: 'overviewSecond', count: 'overviewCount', limit: (workspace: RateLimits) => workspace.overviewRateLimit },
} as const satisfies Record<RateMeter, { second: string; count: string; limit: (workspace: RateLimits) => number }>;

type RateLimits = Pick<Workspace, 'workspaceId' | 'rateLimit' | 'overviewRateLimit'>;

/**
 * Counts a request against the workspace's rate: a fixed one-second window in the month's usage item. One write in
 * the usual case (the window's first request takes two), and it reads back the month's priced lines for free, so a
 * spent quota is refused before the body is even read. A refused request costs the one refused write: the stored
 * window comes back with the refusal and says why.
 */
export async function admitRequest(workspace: RateLimits, nowMs: number, meter: RateMeter = 'api'): Promise<{ linesUsed: number }> {
  const second = Math.floor(nowMs / 1000);
  const { second: secondName, count: countName } = meters[meter];
  const limit = meters[meter].limit(workspace);
  const ExpressionAttributeNames = { '#second': secondName, '#count': countName };
  const Key = keys.usage(workspace.workspaceId, monthOf(nowMs));
  for (let attempt = 0; attempt < 3; attempt++) {
    // A request stamped a moment before another instance opened the next second's window counts in that window,
    // rather than being refused for arriving late.
    const counted = await updateItem({
      Key,
      UpdateExpression: 'ADD #count :one',
      ConditionExpression: '#second >= :second AND #count < :limit',
      ExpressionAttributeNames,
      ExpressionAttributeValues: { ':one': 1, ':second': second, ':limit': limit },
      ReturnValues: 'ALL_NEW',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    if (!counted.refused) return { linesUsed: Number(counted.attributes?.lines ?? 0) };
    const storedSecond = counted.stored?.[secondName];
    if (typeof storedSecond === 'number' && storedSecond >= second) throw rateLimited(limit);
    // A new window: only if the stored one is older, so that two first requests of a second do not both reset it.
    const opened = await updateItem({
      Key,
      UpdateExpression: 'SET #second = :second, #count = :one, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(#second) OR #second < :second',
      ExpressionAttributeNames,
      ExpressionAttributeValues: { ':one': 1, ':second': second, ':expires': usageExpiry(nowMs) },
      ReturnValues: 'ALL_NEW',
    });
    // Refused: another request opened the window first, so count in it.
    if (!opened.refused) return { linesUsed: Number(opened.attributes?.lines ?? 0) };
  }
  throw rateLimited(limit);
}

/** Takes a call's lines from the month's quota, all or none: a call that would cross it prices nothing. */
export async function chargeLines(workspace: Pick<Workspace, 'workspaceId' | 'monthlyLines'>, lines: number, nowMs: number): Promise<void> {
  if (lines > workspace.monthlyLines) throw monthlyVolumeExceeded(workspace, nowMs);
  const charged = await updateItem({
    Key: keys.usage(workspace.workspaceId, monthOf(nowMs)),
    UpdateExpression: 'ADD #lines :lines SET expiresAt = if_not_exists(expiresAt, :expires)',
    ConditionExpression: 'attribute_not_exists(#lines) OR #lines <= :room',
    ExpressionAttributeNames: { '#lines': 'lines' },
    ExpressionAttributeValues: { ':lines': lines, ':room': workspace.monthlyLines - lines, ':expires': usageExpiry(nowMs) },
  });
  if (charged.refused) throw monthlyVolumeExceeded(workspace, nowMs);
  const ledger = currentLedger();
  if (ledger) ledger.pricedLines += lines;
}

/** Gives back the lines of a call that failed after it was charged: the caller will retry it. */
export async function refundLines(workspace: Pick<Workspace, 'workspaceId'>, lines: number, nowMs: number): Promise<void> {
  await updateItem({
    Key: keys.usage(workspace.workspaceId, monthOf(nowMs)),
    UpdateExpression: 'ADD #lines :refund',
    ExpressionAttributeNames: { '#lines': 'lines' },
    ExpressionAttributeValues: { ':refund': -lines },
  });
  const ledger = currentLedger();
  if (ledger) ledger.pricedLines -= lines;
}
