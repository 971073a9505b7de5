// Unit tests of the latency budgets: price serving has the tightest, and every budget names a route of the table.
import { describe, expect, it } from 'vitest';
import { consoleRoutes, routes } from '#edge/routes.ts';
import { DEFAULT_LATENCY_BUDGET_MS, latencyBudgetMs, latencyBudgetsMs } from './latency-budgets.ts';

describe('latency budgets', () => {
  it('give price serving a budget tighter than the default, and every other route the default unless it names its own', () => {
    expect(latencyBudgetMs('getPrice')).toBeLessThan(DEFAULT_LATENCY_BUDGET_MS);
    expect(latencyBudgetMs('priceLines')).toBeLessThan(DEFAULT_LATENCY_BUDGET_MS);
    expect(latencyBudgetMs('listWebhookEndpoints')).toBe(DEFAULT_LATENCY_BUDGET_MS);
  });

  it('name only routes of the route table, each within its function’s timeout', () => {
    const rows = new Map([...routes, ...consoleRoutes].map((route) => [route.id as string, route]));
    for (const [id, budget] of Object.entries(latencyBudgetsMs)) {
      expect(rows.has(id), id).toBe(true);
      expect(budget, id).toBeLessThan((rows.get(id)?.timeoutSeconds ?? 0) * 1000);
    }
  });
});
