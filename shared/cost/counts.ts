// What the cost ledger counts per workspace, day and route: the counters of an item, and the UTC day a moment falls in.

/** The counters of one ledger item; each is a number that flushes ADD to. */
export const costCounters = [
  'requests',
  'status2xx',
  'status3xx',
  'status4xx',
  'status5xx',
  'readUnits',
  'writeUnits',
  /** Lambda's billed duration (rounded up to the millisecond) times the function's configured memory in MB. */
  'lambdaMbMs',
  'invocations',
  /** API Gateway requests as metered: one per started 512 KB of request and response. */
  'apiRequests',
  'sqsRequests',
  'pricedLines',
  /** What the flushes of this item cost themselves: one write unit each. */
  'ledgerWriteUnits',
] as const;
export type CostCounter = (typeof costCounters)[number];
export type CostCounts = Record<CostCounter, number>;

export function emptyCounts(): CostCounts {
  return Object.fromEntries(costCounters.map((counter) => [counter, 0])) as CostCounts;
}

/** The UTC day a moment belongs to, as YYYY-MM-DD. */
export function dayOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}
