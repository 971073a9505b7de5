// POST /api/v1/prices: an ERP or storefront prices up to 100 lines in one idempotent call.
import { routeEndpoint } from '#edge/http/endpoint.ts';
import { priceRoutes } from '#edge/routes/prices.ts';
import { readJsonBody } from '#edge/http/request.ts';
import type { Conforms, ResponseOf } from '#edge/openapi/operations.ts';
import type { LineError, LineResult } from '#shared/prices/price-lines.ts';
import { readIdempotencyKey } from '#shared/idempotency/key.ts';
import { PriceRequestSchema } from '#shared/prices/request.ts';
import { replayInSpentMonth, servePriceCall } from '#shared/prices/serve.ts';
import { monthSpent } from '#shared/workspaces/quota.ts';

/**
 * The answer is JSON already: servePriceCall serialises `{ lines }` from priceLines' results, and a replay repeats it
 * byte for byte. So it is those results that are held to the document, here.
 */
type _ServedLines = Conforms<Array<LineResult | LineError>, ResponseOf<'priceLines'>['lines']>;

export const handler = routeEndpoint(priceRoutes, 'priceLines', async ({ event, principal, remainingMs, nowMs }) => {
  const readCall = () => ({ idempotencyKey: readIdempotencyKey(event), request: readJsonBody(event, PriceRequestSchema) });
  const answer = (await monthSpent(principal.workspace, nowMs))
    ? await replayInSpentMonth(principal, readCall, nowMs)
    : await servePriceCall({ principal, ...readCall(), nowMs, remainingMs });
  const headers: Record<string, string> = answer.replayed ? { 'Idempotent-Replayed': 'true' } : {};
  return { statusCode: answer.statusCode, json: answer.json, headers };
});
