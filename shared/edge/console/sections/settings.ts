// The pages the console's settings function serves: API keys, connectors, webhook endpoints and users.
import type { ConsolePage } from '../page.ts';
import { apiKeysPage } from '../pages/api-keys.ts';
import { connectorsPage } from '../pages/connectors.ts';
import { usersPage } from '../pages/users.ts';
import { webhooksPage } from '../pages/webhooks.ts';

export const settingsPages: readonly ConsolePage[] = [apiKeysPage, connectorsPage, webhooksPage, usersPage];
