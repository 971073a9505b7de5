// What each document says of its surface, its error envelope and its tags.
import type { Surface } from '#platform/errors.ts';

interface SurfaceDoc {
  readonly file: string;
  /**
   * `info.version`: the minor number moves for an additive change, the patch for words alone, the major only with a
   * new path version; `npm run openapi:check` holds it against the released document (docs/versioning.md).
   */
  readonly version: string;
  readonly title: string;
  readonly description: string;
  readonly envelope: string;
}

export const surfaceDocs: Readonly<Record<Surface, SurfaceDoc>> = {
  v1: {
    file: 'openapi/api-v1.json',
    version: '1.0.0',
    title: 'Pricing service API',
    description:
      'Price serving, canonical ingest and write-backs for B2B sellers, under `/api/v1`. Every answer carries ' +
      '`x-request-id`; every error is `{"error": {"code", "message", "param"?, "requestId"}}`, `param` naming the ' +
      'offending input (`records[17].lines[0].costCents`). Request bodies are strict: an unknown field is 422 ' +
      '`invalid_request` naming it, and no body may nest objects and arrays more than 64 levels deep. Any other ' +
      'method or path is 404 `invalid_request`. Calls are limited per workspace: requests per second over all of ' +
      '`/api/v1`, and priced lines per calendar month (UTC).',
    envelope: 'Error',
  },
  overview: {
    file: 'openapi/overview-v1.json',
    version: '1.0.0',
    title: 'Pricing service overview API',
    description:
      'The overview surface, under `/v1`: a SKU’s recommended price, and approving a price, which live keys publish ' +
      'to every connector that takes write-backs. Every answer carries `x-request-id`; every error is ' +
      '`{"error": {"code", "message", "request_id"}}`: malformed input is 400 `bad_request`, a fault 500 ' +
      '`server_error`, and any other method or path under `/v1/` 404 `not_found`. Request bodies are strict, and nest ' +
      'objects and arrays at most 64 levels deep. Requests are limited per workspace, per second, apart from `/api/v1`.',
    envelope: 'OverviewError',
  },
};

export const tagDescriptions: Readonly<Record<string, string>> = {
  Prices: 'Real-time, explainable prices for ERPs and storefronts.',
  Ingest: 'Batches of canonical records (products, customers, quotes, orders) that a connector stages and commits.',
  'Write-backs': 'Approved prices, as tasks a connector claims, applies in its own system, and acknowledges.',
  Recommendations: 'A SKU’s recommended price, with its rationale and drivers.',
  Approvals: 'Approving a price, and publishing it to the connectors.',
  Contract: 'The machine-readable contract itself.',
  Usage: 'What the workspace cost, in US dollars at list prices, by day or by route.',
  Analytics: 'Whether sellers followed the price guidance, and what following it earned.',
  Webhooks: 'The endpoints a workspace registers to receive webhook events, each with its subscriptions and signing secret.',
  'Webhook events':
    'Events the service POSTs to the endpoints a workspace registers, signed by the Standard Webhooks rules, so that a ' +
    'connector learns of a drained batch or an approved price without polling.',
};
