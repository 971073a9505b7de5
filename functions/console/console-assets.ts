// GET /console/assets/{asset}: the console's stylesheet, under a name that carries its content's hash, cached for a year.
import { consoleAssets } from '#edge/console/assets.ts';
import { consoleRouteEndpoint } from '#edge/console/endpoint.ts';
import { securityHeaders } from '#edge/console/responses.ts';

export const handler = consoleRouteEndpoint('consoleAsset', async ({ event, requestId }) => {
  const found = consoleAssets().get(event.pathParameters?.asset ?? '');
  if (!found) {
    return {
      statusCode: 404,
      headers: { ...securityHeaders, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': requestId },
      body: 'The console has no such file.',
    };
  }
  return {
    statusCode: 200,
    headers: {
      ...securityHeaders,
      'content-type': found.contentType,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-request-id': requestId,
    },
    body: found.bytes.toString('base64'),
    isBase64Encoded: true,
  };
});
