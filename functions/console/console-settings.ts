// GET and POST /console/settings/…: API keys, connectors, webhook endpoints and users, whose forms need the admin role.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { servePages } from '#edge/console/router.ts';
import { settingsPages } from '#edge/console/sections/settings.ts';

const serve = servePages(settingsPages);

export const handler = consoleRoutesHandler({ consoleSettings: serve, consoleSettingsAction: serve });
