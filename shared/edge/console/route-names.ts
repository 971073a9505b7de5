// The names a person reads for the cost ledger's route keys: an HTTP route's method and path, a worker's or job's few words.
import { consoleRoutes, fallbackRoute, routeKey, routes } from '#edge/routes.ts';

/**
 * The functions no route calls have no method and path to show; `bands` is a job of the drain worker, charged under a
 * key of its own, with no row of its own.
 */
const backgroundNames: Readonly<Record<string, string>> = {
  drain: 'Drain worker',
  bands: 'Bands job',
  deliverWebhooks: 'Webhook delivery worker',
  sweepWebhookOutbox: 'Webhook outbox sweep (scheduled)',
  [fallbackRoute.id]: 'Unknown API path (404)',
};

/** Built from the route table itself, so that a route added is named without a word here. */
const names: ReadonlyMap<string, string> = new Map([
  ...routes.map((route) => [route.id, routeKey(route)] as const),
  ...consoleRoutes.map((route) => [route.id, `Console: ${routeKey(route)}`] as const),
  ...Object.entries(backgroundNames),
]);

/**
 * The name of a ledger key: `POST /api/v1/prices` for `priceLines`, `Drain worker` for `drain`. A key no row has any
 * more (a route since removed, whose items live on for 400 days) is shown as it was stored.
 */
export function routeName(key: string): string {
  return names.get(key) ?? key;
}
