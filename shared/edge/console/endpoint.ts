// The glue of the console's handlers: each request with its log keys, trace, meter and cost line, and a fault answered as an HTML page with the console's headers.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type HttpEvent, type HttpResult, requestIdOf } from '#edge/http/endpoint.ts';
import { logger, withLogKeys } from '#platform/observability.ts';
import { metered, type MeteredUnit, workspaceShare } from '#edge/metering.ts';
// The console's rows alone: the glue bundles none of the API's route rows (only the cost page does, to name its lines).
import { type ConsoleRouteId, consoleRouteById } from '#edge/routes/console.ts';
import { answerForMethod, routeKey, servingRouteKey } from '#edge/routes/rows.ts';
import { traceRequests } from '#platform/tracing.ts';
import { html } from './html.ts';
import { htmlAnswer } from './responses.ts';

export interface ConsoleEndpointRequest {
  readonly event: HttpEvent;
  readonly requestId: string;
  readonly nowMs: number;
  /** The workspace the request worked for, once a session names it: its work is charged to that workspace. */
  chargeTo(workspaceId: string): void;
}

function faultPage(requestId: string): HttpResult {
  return htmlAnswer(
    500,
    html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <title>Something went wrong · Pricing console</title>
        </head>
        <body>
          <main>
            <h1>Something went wrong</h1>
            <p>Quote request ${requestId} if you report it. <a href="/console">Back to the console</a></p>
          </main>
        </body>
      </html>`,
    requestId,
  );
}

/** A console route's handler: `run` answers every request; whatever it throws is logged and answered 500 as a page. */
export function consoleRouteEndpoint(routeId: ConsoleRouteId, run: (request: ConsoleEndpointRequest) => Promise<HttpResult>) {
  const route = consoleRouteById(routeId);
  const answer = async (event: HttpEvent, nowMs: number, unit: MeteredUnit): Promise<HttpResult> => {
    const requestId = requestIdOf(event);
    try {
      return await run({ event, requestId, nowMs, chargeTo: (id) => (unit.workspaceId = id) });
    } catch (error) {
      logger.error('unhandled fault', { error: error as Error });
      return faultPage(requestId);
    }
  };
  const handler = middy<HttpEvent, HttpResult, Error, Context>()
    .use(traceRequests<HttpEvent, HttpResult, Context>(route.id))
    .handler((event) => {
      const nowMs = Date.now();
      return metered(
        route,
        (measure) =>
          measure(
            (unit) => answer(event, nowMs, unit),
            (result) => result.statusCode ?? 200,
          ),
        // A signed-in person's pages cost their workspace, as its keys' calls do; sign-in pages are nobody's to pay.
        ([unit]) => workspaceShare(unit, { route: route.id, nowMs, apiRequests: 1 }),
      );
    });
  return async (event: HttpEvent, context: Context): Promise<HttpResult> =>
    answerForMethod(
      event.requestContext.http.method,
      await withLogKeys({ requestId: requestIdOf(event), route: route.id }, () => handler(event, context)),
    );
}

/** One function serving several console routes: API Gateway's route key says which was asked for. */
export function consoleRoutesHandler(runs: Partial<Record<ConsoleRouteId, (request: ConsoleEndpointRequest) => Promise<HttpResult>>>) {
  const endpoints = new Map(
    Object.entries(runs).map(([id, run]) => {
      const routeId = id as ConsoleRouteId;
      return [routeKey(consoleRouteById(routeId)), consoleRouteEndpoint(routeId, run)] as const;
    }),
  );
  return (event: HttpEvent, context: Context): Promise<HttpResult> => {
    const endpoint = endpoints.get(servingRouteKey(event.routeKey));
    if (!endpoint) throw new Error(`no console route for ${event.routeKey}`);
    return endpoint(event, context);
  };
}
