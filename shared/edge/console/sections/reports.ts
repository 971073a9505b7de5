// The pages the console's main function serves: the front page, batches, write-backs, cost and adherence, all read-only.
import type { ConsolePage } from '../page.ts';
import { adherencePage } from '../pages/adherence.ts';
import { batchesPage } from '../pages/batches.ts';
import { costPage } from '../pages/cost.ts';
import { homePage } from '../pages/home.ts';
import { writebacksPage } from '../pages/writebacks.ts';

export const reportPages: readonly ConsolePage[] = [homePage, batchesPage, writebacksPage, costPage, adherencePage];
