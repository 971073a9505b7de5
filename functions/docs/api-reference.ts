// GET /docs, the API reference page, and GET /docs/{asset}, the files it loads: Redoc and the page's own script and styles, served here, not from a CDN.
import { randomBytes } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { ApiError, quoted } from '#platform/errors.ts';
import { type HttpEvent, openRouteEndpoint } from '#edge/http/endpoint.ts';
import { docsRoutes } from '#edge/routes/docs.ts';
import { preferredEncoding, referenceAssets } from '#edge/reference/assets.ts';
import { IMMUTABLE, openAnswerHeaders, pageHeaders, SHORT_LIVED } from '#edge/reference/headers.ts';
import { referencePage } from '#edge/reference/page.ts';
import { rowOf, routeKey, servingRouteKey } from '#edge/routes/rows.ts';

const page = openRouteEndpoint(docsRoutes, 'apiReference', async () => {
  const nonce = randomBytes(16).toString('base64');
  return { statusCode: 200, headers: pageHeaders(nonce), contentType: 'text/html; charset=utf-8', content: referencePage(nonce) };
});

const asset = openRouteEndpoint(docsRoutes, 'apiReferenceAsset', async ({ event }) => {
  const name = event.pathParameters?.asset ?? '';
  const found = referenceAssets().get(name);
  if (!found) {
    throw new ApiError('invalid_request', `The API reference has no file ${quoted(name)}.`, { param: 'asset', status: 404 });
  }
  const encoding = preferredEncoding(event.headers['accept-encoding']);
  return {
    statusCode: 200,
    headers: {
      ...openAnswerHeaders,
      'cache-control': event.queryStringParameters?.v === found.version ? IMMUTABLE : SHORT_LIVED,
      vary: 'accept-encoding',
      ...(encoding ? { 'content-encoding': encoding } : {}),
    },
    contentType: found.contentType,
    content: encoding ? found.encoded(encoding) : found.bytes,
  };
});

const endpoints = new Map([
  [routeKey(rowOf(docsRoutes, 'apiReference')), page],
  [routeKey(rowOf(docsRoutes, 'apiReferenceAsset')), asset],
]);

/** Both routes share this module; API Gateway's route key says which was asked for. */
export const handler = (event: HttpEvent, context: Context) => {
  const endpoint = endpoints.get(servingRouteKey(event.routeKey));
  if (!endpoint) throw new Error(`no reference route for ${event.routeKey}`);
  return endpoint(event, context);
};
