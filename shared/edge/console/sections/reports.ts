// The pages the console's main function serves: the front page, batches, write-backs, cost and adherence, all read-only.
import type { ConsolePage } from '#edge/console/page.ts';
import { adherencePage } from '#edge/console/pages/adherence.ts';
import { batchesPage } from '#edge/console/pages/batches.ts';
import { costPage } from '#edge/console/pages/cost.ts';
import { homePage } from '#edge/console/pages/home.ts';
import { writebacksPage } from '#edge/console/pages/writebacks.ts';

export const reportPages: readonly ConsolePage[] = [homePage, batchesPage, writebacksPage, costPage, adherencePage];
