// The pages the console's pricing function serves: recommendations and a product's page with its approval form.
import type { ConsolePage } from '#edge/console/page.ts';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { productPage } from '#edge/console/pages/recommendations.ts';

export const pricingPages: readonly ConsolePage[] = [recommendationsPage, productPage];
