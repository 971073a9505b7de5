// GET and POST /console/settings/…: API keys, connectors, webhook endpoints and users, whose forms need the admin role.
import { consoleRoutesHandler } from '../shared/console/endpoint.ts';
import { servePages } from '../shared/console/router.ts';
import { settingsPages } from '../shared/console/sections/settings.ts';

const serve = servePages(settingsPages);

export const handler = consoleRoutesHandler({ consoleSettings: serve, consoleSettingsAction: serve });
