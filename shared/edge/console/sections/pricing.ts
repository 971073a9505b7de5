// The pages the console's pricing function serves: recommendations and a product's page with its approval form.
import type { ConsolePage } from '../page.ts';
import { productPage, recommendationsPage } from '../pages/recommendations.ts';

export const pricingPages: readonly ConsolePage[] = [recommendationsPage, productPage];
