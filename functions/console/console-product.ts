// GET and POST /console/recommendations/{sku}: a product's page, why its price is what it is, and its approval form.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { servePages } from '#edge/console/router.ts';
import { productPage } from '#edge/console/pages/recommendations.ts';

const serve = servePages([productPage]);

export const handler = consoleRoutesHandler({
  consoleProduct: serve,
  consoleApprove: serve,
});
