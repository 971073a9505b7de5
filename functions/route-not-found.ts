// API Gateway's $default route: every method and path that no route claims is answered 404 in the v1 envelope.
import { ApiError } from '../shared/errors.ts';
import { openEndpoint } from '../shared/http/endpoint.ts';

export const handler = openEndpoint('routeNotFound', async ({ event }) => {
  const { method, path } = event.requestContext.http;
  throw new ApiError('invalid_request', `No route for ${method} ${path}. See the API reference for the endpoints of v1.`, { status: 404 });
});
