// Unit tests of the cost ledger's route names: each row of the route table named for a person, an old key shown as stored.
import { describe, expect, it } from 'vitest';
import { consoleRoutes, fallbackRoute, routes, scheduledJobs, workers } from '#edge/routes.ts';
import { routeName } from './route-names.ts';

describe('the names of the cost ledger’s route keys', () => {
  it('names an API route by its method and path', () => {
    expect(routeName('priceLines')).toBe('POST /api/v1/prices');
    expect(routeName('getPrice')).toBe('GET /v1/prices/{sku}');
    expect(routeName('getUsage')).toBe('GET /v1/usage');
  });

  it('names a console route by its method and path, marked as the console’s', () => {
    expect(routeName('consolePage')).toBe('Console: GET /console/{path+}');
    expect(routeName('consoleApprove')).toBe('Console: POST /console/recommendations/{sku}');
  });

  it('names the workers, the drain’s bands job and the scheduled jobs in words', () => {
    expect(routeName('drain')).toBe('Drain worker');
    expect(routeName('bands')).toBe('Bands job');
    expect(routeName('deliverWebhooks')).toBe('Webhook delivery worker');
    expect(routeName('sweepWebhookOutbox')).toMatch(/^Webhook outbox sweep/);
  });

  it('leaves no row of the route table, worker or job to show its bare id', () => {
    const ids = [...routes, ...consoleRoutes, ...workers, ...scheduledJobs, fallbackRoute].map((row) => row.id);
    for (const id of ids) expect(routeName(id), id).not.toBe(id);
  });

  it('shows a key no row has any more as it was stored', () => {
    expect(routeName('priceQuote')).toBe('priceQuote');
    expect(routeName('')).toBe('');
  });
});
