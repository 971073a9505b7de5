// API Gateway's $default route: a method a known path does not serve is answered 405 with Allow, every other method and path no route claims 404, in the envelope of the surface its path is under.
import type { Context } from 'aws-lambda';
import { ApiError, quoted } from '#platform/errors.ts';
import { type HttpEvent, openEndpoint } from '#edge/http/endpoint.ts';
import { consoleRoutes, routes } from '#edge/routes.ts';
import { methodsAt } from '#edge/routes/rows.ts';

/** The route table's methods at the path, read on each request from the same rows the stack and local mode serve. */
function wrongMethod(event: HttpEvent): ApiError | undefined {
  const { method, path } = event.requestContext.http;
  const allowed = methodsAt([...routes, ...consoleRoutes], path);
  if (allowed.length === 0) return undefined;
  const allow = allowed.join(', ');
  return new ApiError('invalid_request', `${quoted(path)} does not serve ${quoted(method)}; it serves ${allow}.`, {
    status: 405,
    headers: { Allow: allow },
  });
}

const v1 = openEndpoint('routeNotFound', async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw (
    wrongMethod(event) ??
    new ApiError('invalid_request', `No route for ${method} ${quoted(path)}. See the API reference for the endpoints of v1.`, {
      status: 404,
    })
  );
});

/** The overview surface's own 404 code; a wrong method is its `bad_request`, 405. */
const overview = openEndpoint(
  'routeNotFound',
  async ({ event }) => {
    const { method, path } = event.requestContext.http;
    throw (
      wrongMethod(event) ??
      new ApiError(
        'not_found',
        `No route for ${method} ${quoted(path)}. The overview serves GET /v1/prices/{sku}, POST /v1/prices/approve and GET /v1/openapi.json.`,
      )
    );
  },
  'overview',
);

export const handler = (event: HttpEvent, context: Context) =>
  (event.requestContext.http.path.startsWith('/v1/') ? overview : v1)(event, context);
