// Each HTTP route's latency budget: the time within which it answers 99 requests in 100, measured by its handler.

/** A route with no budget of its own: a console page or an API call that reads or writes a few items. */
export const DEFAULT_LATENCY_BUDGET_MS = 1_000;

/**
 * Price serving first: what a connector waits on while a seller's shop or ERP waits on it. The rest stay on the
 * default; a route whose normal work is longer (a staging call of many records) names its own.
 */
export const latencyBudgetsMs: Readonly<Record<string, number>> = {
  getPrice: 300,
  priceLines: 800,
  approvePrice: 500,
  stageRecords: 3_000,
  commitBatch: 2_000,
};

/**
 * The share of a route's requests over budget that means its p99 is over budget: more than one request in a hundred
 * slower than the budget is exactly a 99th percentile above it.
 */
export const OVER_BUDGET_SHARE = 0.01;

export function latencyBudgetMs(routeId: string): number {
  return latencyBudgetsMs[routeId] ?? DEFAULT_LATENCY_BUDGET_MS;
}
