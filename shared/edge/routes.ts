// The route table: every HTTP route and queue worker of the service, read by the CDK stack and by local mode alike.
import { docsRoutes, fallbackRoute } from '#edge/routes/docs.ts';
import { ingestRoutes } from '#edge/routes/ingest.ts';
import { overviewPriceRoutes, priceRoutes } from '#edge/routes/prices.ts';
import { reportRoutes } from '#edge/routes/reports.ts';
import type { HttpRoute } from '#edge/routes/rows.ts';
import { webhookRoutes } from '#edge/routes/webhooks.ts';
import { writebackRoutes } from '#edge/routes/writebacks.ts';
import { scheduledJobs, workers } from '#edge/routes/workers.ts';

export type { FallbackRoute, HttpRoute, QueueWorker, RouteAccess } from '#edge/routes/rows.ts';
export { routeKey } from '#edge/routes/rows.ts';
export { type ConsoleRoute, consoleRouteById, type ConsoleRouteId, consoleRoutes } from '#edge/routes/console.ts';
export { fallbackRoute } from '#edge/routes/docs.ts';
export { type ScheduledJob, scheduledJobs, workers } from '#edge/routes/workers.ts';

/** Each area's rows are in routes/; local mode matches in this order, and the documents list their paths in it. */
export const routes = [
  ...priceRoutes,
  ...ingestRoutes,
  ...writebackRoutes,
  ...overviewPriceRoutes,
  ...webhookRoutes,
  ...reportRoutes,
  ...docsRoutes,
] as const satisfies readonly HttpRoute[];

export type RouteId = (typeof routes)[number]['id'];
/** Routes that read a key: their handlers are built with `routeEndpoint`. */
export type KeyedRouteId = Exclude<(typeof routes)[number], { auth: 'none' }>['id'];
/** Routes open to every caller: their handlers are built with `openRouteEndpoint`. */
export type OpenRouteId = Extract<(typeof routes)[number], { auth: 'none' }>['id'];

export function routeById(id: RouteId): HttpRoute {
  const route = routes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`no route ${id}`);
  return route;
}

/**
 * The configured memory of a route, worker or scheduled job, for pricing cost lines by their route (the bench does);
 * a job of the drain worker (`drain`, `bands`) runs in the drain's.
 */
export function memoryOf(routeOrWorker: string): number {
  const rows = [...routes, ...workers, ...scheduledJobs, fallbackRoute];
  const row = rows.find((candidate) => candidate.id === routeOrWorker) ?? rows.find((candidate) => candidate.id === 'drain');
  return row?.memoryMb ?? 1024;
}
