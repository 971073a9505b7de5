// The pages of the console's pricing functions: the recommendations with their bulk approval, and a product's page with its approval form.
import type { ConsolePage } from '#edge/console/page.ts';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';
import { productPage } from '#edge/console/pages/recommendations.ts';

/**
 * Served by two functions, each importing only its own page, not this list: a module's top-level values are kept by the
 * bundler, so importing this would bundle both pages into each, past the bundle-size target.
 */
export const pricingPages: readonly ConsolePage[] = [recommendationsPage, productPage];
