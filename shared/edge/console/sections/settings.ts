// The pages the console's settings function serves: API keys, connectors, webhook endpoints (and each one's page), users and one's own password.
import type { ConsolePage } from '#edge/console/page.ts';
import { apiKeysPage } from '#edge/console/pages/api-keys.ts';
import { connectorsPage } from '#edge/console/pages/connectors.ts';
import { passwordPage } from '#edge/console/pages/password.ts';
import { usersPage } from '#edge/console/pages/users.ts';
import { webhookEndpointPage } from '#edge/console/pages/webhook-endpoint.ts';
import { webhooksPage } from '#edge/console/pages/webhooks.ts';

export const settingsPages: readonly ConsolePage[] = [
  apiKeysPage,
  connectorsPage,
  webhooksPage,
  webhookEndpointPage,
  usersPage,
  passwordPage,
];
