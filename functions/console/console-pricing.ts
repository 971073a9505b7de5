// GET and POST /console/recommendations: the recommendations, filtered, sorted and paged, and their bulk approval.
import { consoleRoutesHandler } from '#edge/console/endpoint.ts';
import { servePages } from '#edge/console/router.ts';
import { recommendationsPage } from '#edge/console/pages/recommendation-list.ts';

const serve = servePages([recommendationsPage]);

export const handler = consoleRoutesHandler({
  consoleRecommendations: serve,
  consoleBulkApprove: serve,
});
