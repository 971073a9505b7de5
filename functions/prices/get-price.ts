// GET /v1/prices/{sku}: the overview reads a SKU's current recommendation, with its rationale and drivers on request.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { overviewPriceRoutes } from '#edge/routes/prices.ts';
import { readPathParameter } from '#edge/http/request.ts';
import { parseInput } from '#platform/input.ts';
import type { DocumentedReply } from '#edge/openapi/operations.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { overviewPrice, parseInclude, PriceQuerySchema, pricedOrRefused } from '#shared/recommendations/overview.ts';
import { findRecommendation } from '#shared/recommendations/repository.ts';

export const handler = routeEndpoint(overviewPriceRoutes, 'getPrice', async ({ event, principal, nowMs }) => {
  // The SKU becomes part of the key read; past the identifier bound it would be a key DynamoDB refuses.
  const sku = readPathParameter(event, 'sku', IdentifierSchema);
  const include = parseInclude(parseInput(PriceQuerySchema, event.queryStringParameters)?.include);
  const recommendation = pricedOrRefused(await findRecommendation(principal.workspace, sku, nowMs), sku);
  return { statusCode: 200, body: overviewPrice(recommendation, include) } satisfies DocumentedReply<'getPrice'>;
});
