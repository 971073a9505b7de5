// GET and POST /console/settings/…: API keys, connectors, webhook endpoints and users, whose forms need the admin role.
import type { Context } from 'aws-lambda';
import { consoleRouteEndpoint } from '../shared/console/endpoint.ts';
import { serveConsole } from '../shared/console/router.ts';
import { settingsPages } from '../shared/console/sections/settings.ts';
import type { HttpEvent } from '../shared/http/endpoint.ts';
import { type ConsoleRouteId, consoleRouteById, routeKey } from '../shared/routes.ts';

const ids: readonly ConsoleRouteId[] = ['consoleSettings', 'consoleSettingsAction'];
const endpoints = new Map(
  ids.map((id) => [
    routeKey(consoleRouteById(id)),
    consoleRouteEndpoint(id, ({ event, requestId, nowMs, chargeTo }) =>
      serveConsole({ event, requestId, nowMs, pages: settingsPages, onSession: (user) => chargeTo(user.workspaceId) }),
    ),
  ]),
);

/** The routes share this module; API Gateway's route key says which was asked for. */
export const handler = (event: HttpEvent, context: Context) => {
  const endpoint = endpoints.get(event.routeKey);
  if (!endpoint) throw new Error(`no console route for ${event.routeKey}`);
  return endpoint(event, context);
};
