// Serving an OpenAPI document at its surface's openapi.json: the handler of each document route is this, given its document.
import { openRouteEndpoint } from '#edge/http/endpoint.ts';
import type { OpenRouteId } from '#edge/routes.ts';
import { docsRoutes } from '#edge/routes/docs.ts';
import { openAnswerHeaders, SHORT_LIVED } from './headers.ts';

/**
 * Serialised on the first request rather than at load, so that anything going wrong is answered in the surface's
 * envelope. The document comes from the handler module that imports it: each bundle carries its own surface's alone.
 */
export function documentEndpoint(routeId: OpenRouteId, document: unknown) {
  let json: string | undefined;
  return openRouteEndpoint(docsRoutes, routeId, async () => {
    json ??= JSON.stringify(document);
    return { statusCode: 200, headers: { ...openAnswerHeaders, 'cache-control': SHORT_LIVED }, json };
  });
}
