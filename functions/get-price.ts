// GET /v1/prices/{sku}: the overview reads a SKU's current recommendation, with its rationale and drivers on request.
import * as v from 'valibot';
import { routeEndpoint } from '../shared/http/endpoint.ts';
import { parseInput, readPathParameter } from '../shared/http/request.ts';
import { overviewPrice, parseInclude, PriceQuerySchema, pricedOrRefused } from '../shared/recommendations/overview.ts';
import { findRecommendation } from '../shared/recommendations/repository.ts';

export const handler = routeEndpoint('getPrice', async ({ event, principal, nowMs }) => {
  const sku = readPathParameter(event, 'sku', v.pipe(v.string(), v.minLength(1, 'a SKU')));
  const include = parseInclude(parseInput(PriceQuerySchema, event.queryStringParameters)?.include);
  const recommendation = pricedOrRefused(await findRecommendation(principal.workspace, sku, nowMs), sku);
  return { statusCode: 200, body: overviewPrice(recommendation, include) };
});
