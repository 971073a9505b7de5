// The console's page registry: every page, and the groups each console function serves, so that no function bundles pages it never shows.
import type { ConsolePage } from '#edge/console/page.ts';
import { adherencePage } from './adherence.ts';
import { apiKeysPage } from './api-keys.ts';
import { batchesPage } from './batches.ts';
import { connectorsPage } from './connectors.ts';
import { costPage } from './cost.ts';
import { homePage } from './home.ts';
import { passwordPage } from './password.ts';
import { recommendationsPage } from './recommendation-list.ts';
import { productPage } from './recommendations.ts';
import { usersPage } from './users.ts';
import { webhookEndpointPage } from './webhook-endpoint.ts';
import { webhooksPage } from './webhooks.ts';
import { writebacksPage } from './writebacks.ts';

/** Every page, in the order of the navigation. */
export const consolePages: readonly ConsolePage[] = [
  homePage,
  recommendationsPage,
  productPage,
  batchesPage,
  writebacksPage,
  costPage,
  adherencePage,
  apiKeysPage,
  connectorsPage,
  webhooksPage,
  webhookEndpointPage,
  usersPage,
  passwordPage,
];
