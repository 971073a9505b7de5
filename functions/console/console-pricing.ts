// GET and POST /console/recommendations and GET and POST /console/recommendations/{sku}: the recommendations with their bulk approval, a product's page and its approval form.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { servePages } from '#edge/console/router.ts';
import { pricingPages } from '#edge/console/sections/pricing.ts';

const serve = servePages(pricingPages);

export const handler = consoleRoutesHandler({
  consoleRecommendations: serve,
  consoleBulkApprove: serve,
  consoleProduct: serve,
  consoleApprove: serve,
});
