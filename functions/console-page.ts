// GET and POST of every console page under /console: the router finds the page, checks the session, the CSRF token and the role, and renders it.
import type { Context } from 'aws-lambda';
import { consoleRouteEndpoint } from '../shared/console/endpoint.ts';
import { consolePages } from '../shared/console/pages/index.ts';
import { serveConsole } from '../shared/console/router.ts';
import type { HttpEvent } from '../shared/http/endpoint.ts';
import { type ConsoleRouteId, consoleRouteById, routeKey } from '../shared/routes.ts';

const ids: readonly ConsoleRouteId[] = ['consoleHome', 'consolePage', 'consoleAction'];
const endpoints = new Map(
  ids.map((id) => [
    routeKey(consoleRouteById(id)),
    consoleRouteEndpoint(id, ({ event, requestId, nowMs, chargeTo }) =>
      serveConsole({ event, requestId, nowMs, pages: consolePages, onSession: (user) => chargeTo(user.workspaceId) }),
    ),
  ]),
);

/** The pages' routes share this module; API Gateway's route key says which was asked for. */
export const handler = (event: HttpEvent, context: Context) => {
  const endpoint = endpoints.get(event.routeKey);
  if (!endpoint) throw new Error(`no console route for ${event.routeKey}`);
  return endpoint(event, context);
};
