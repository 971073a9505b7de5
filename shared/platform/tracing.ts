// X-Ray tracing of every function: the Powertools tracer, the handler's segment, and the route and workspace annotations that find a request's trace.
import { createRequire } from 'node:module';
import type * as TracerPackage from '@aws-lambda-powertools/tracer';
import type * as TracerMiddleware from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { serviceName } from './config.ts';

interface TracerModules {
  readonly tracer: TracerPackage.Tracer;
  readonly captureLambdaHandler: typeof TracerMiddleware.captureLambdaHandler;
}

/**
 * The tracer is not in the function bundles: with the X-Ray SDK it weighs about 120 KB, which would take most bundles
 * past their 400 KB target. In Lambda it comes from the Powertools layer, pinned by the stack to the version installed
 * here (lib/stack/constructs/powertools-layer.ts), and is loaded the CommonJS way, which searches the layer's folder on
 * NODE_PATH. Running from the project, it loads from node_modules. A bundle run anywhere else finds no tracer and
 * traces nothing, as local mode would anyway.
 */
function loadTracer(): TracerModules | undefined {
  const load = createRequire(import.meta.url);
  try {
    const { Tracer } = load('@aws-lambda-powertools/tracer') as typeof TracerPackage;
    const { captureLambdaHandler } = load('@aws-lambda-powertools/tracer/middleware') as typeof TracerMiddleware;
    // Outgoing HTTPS is not patched: the AWS clients are captured one by one, so each call is one subsegment, not two.
    return { tracer: new Tracer({ serviceName, captureHTTPsRequests: false }), captureLambdaHandler };
  } catch (error) {
    if (process.env.AWS_EXECUTION_ENV) console.warn('tracing is off: the Powertools tracer could not be loaded', error);
    return undefined;
  }
}

/**
 * Tracing is on only in Lambda (AWS_EXECUTION_ENV set) and unless POWERTOOLS_TRACE_ENABLED is `false`, which local mode
 * sets; off, every call here does nothing. The tracer decides so itself, but it is not even loaded then: the X-Ray SDK
 * installs an async hook as it loads, which would slow every promise of the process while tracing nothing.
 */
function tracingWanted(): boolean {
  return Boolean(process.env.AWS_EXECUTION_ENV) && process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false';
}

const traced = tracingWanted() ? loadTracer() : undefined;

/** Names of the annotations: X-Ray filter expressions search by them, e.g. `annotation.workspaceId = "…"`. */
export const traceAnnotations = { route: 'route', workspace: 'workspaceId' } as const;

/** Where Powertools places it: on the client instance, once, before any command is sent (and before a document client wraps it). */
export function traceAwsClient<T>(client: T): T {
  return traced ? traced.tracer.captureAWSv3Client(client) : client;
}

export function annotateWorkspace(workspaceId: string | undefined): void {
  if (workspaceId) traced?.tracer.putAnnotation(traceAnnotations.workspace, workspaceId);
}

/**
 * The handler's subsegment and its route annotation, as middy middlewares. Responses are not recorded in the trace:
 * they hold customers' prices, and the logs already say what answered. A refusal the error envelope has answered (a
 * 4xx) closes the subsegment as an answer; only a fault (a 5xx, or a worker's error) is recorded as one, with its error.
 */
export function traceRequests<Event, Result, Ctx extends Context = Context>(
  route: string,
): Array<MiddlewareObj<Event, Result, Error, Ctx>> {
  if (!traced) return [];
  const { tracer } = traced;
  type Hook = NonNullable<MiddlewareObj<Event, Result, Error, Ctx>['before']>;
  const capture = traced.captureLambdaHandler(tracer, { captureResponse: false }) as unknown as Record<
    'before' | 'after' | 'onError',
    Hook
  >;
  const answeredStatus = (response: unknown) => (response as { statusCode?: number } | undefined)?.statusCode ?? 500;
  return [
    {
      before: capture.before,
      after: capture.after,
      onError: (request) => (answeredStatus(request.response) < 500 ? capture.after(request) : capture.onError(request)),
    },
    { before: () => tracer.putAnnotation(traceAnnotations.route, route) },
  ];
}

/** A handler that is not an endpoint (a queue worker), traced like one. */
export function tracedHandler<Event, Result>(route: string, handler: (event: Event, context: Context) => Promise<Result>) {
  const chain = middy<Event, Result, Error, Context>()
    .use(traceRequests<Event, Result>(route))
    .handler((event, context) => handler(event, context));
  return (event: Event, context: Context): Promise<Result> => chain(event, context);
}
