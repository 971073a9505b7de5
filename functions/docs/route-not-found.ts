// API Gateway's $default route: every method and path that no route claims is answered 404, in the envelope of the surface its path is under.
import type { Context } from 'aws-lambda';
import { ApiError, quoted } from '#platform/errors.ts';
import { type HttpEvent, openEndpoint } from '#edge/http/endpoint.ts';

const v1 = openEndpoint('routeNotFound', async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new ApiError('invalid_request', `No route for ${method} ${quoted(path)}. See the API reference for the endpoints of v1.`, {
    status: 404,
  });
});

/** The overview surface's own 404 code. */
const overview = openEndpoint(
  'routeNotFound',
  async ({ event }) => {
    const { method, path } = event.requestContext.http;
    throw new ApiError(
      'not_found',
      `No route for ${method} ${quoted(path)}. The overview serves GET /v1/prices/{sku}, POST /v1/prices/approve and GET /v1/openapi.json.`,
    );
  },
  'overview',
);

export const handler = (event: HttpEvent, context: Context) =>
  (event.requestContext.http.path.startsWith('/v1/') ? overview : v1)(event, context);
