// Logs and metrics: the structured logger and the keys that name the request of each line, and the one cost line and EMF metrics that end every request.
import { AsyncLocalStorage } from 'node:async_hooks';
import { LogFormatter, LogItem, Logger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, serviceName } from './config.ts';
import type { CapacityLedger } from './meter.ts';

/** What names the request or job a log line was written for: its request id and route, or its batch and job. */
export type LogKeys = Record<string, string | number | undefined>;

// Local mode and the tests run many requests at once in one process with this one logger, so the keys follow the async
// context: the logger's own appendKeys is shared by all of them unless Lambda runs invocations concurrently itself.
const logScopes = new AsyncLocalStorage<LogKeys>();

/** Every line logged while `run` runs, and in whatever it starts, carries `keys` (and those of any enclosing scope). */
export function withLogKeys<T>(keys: LogKeys, run: () => T): T {
  return logScopes.run({ ...logScopes.getStore(), ...keys }, run);
}

/**
 * Adds keys learned partway through, such as the workspace once a key is authenticated, to the rest of the current
 * scope's lines. Outside a scope there is no request to name, and nothing is added.
 */
export function appendLogKeys(keys: LogKeys): void {
  const scope = logScopes.getStore();
  if (scope) Object.assign(scope, keys);
}

/**
 * Powertools' default line, with the current scope's keys added. A key the call itself passes wins, unless it passes
 * it undefined: the drain's cost line names a workspace it may not know where the scope already does.
 */
class ScopedLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const base: LogAttributes = {
      level: attributes.logLevel,
      message: attributes.message,
      timestamp: this.formatTimestamp(attributes.timestamp),
      service: attributes.serviceName,
      cold_start: attributes.lambdaContext?.coldStart,
      function_arn: attributes.lambdaContext?.invokedFunctionArn,
      function_memory_size: attributes.lambdaContext?.memoryLimitInMB,
      function_name: attributes.lambdaContext?.functionName,
      function_request_id: attributes.lambdaContext?.awsRequestId,
      sampling_rate: attributes.sampleRateValue,
      xray_trace_id: attributes.xRayTraceId,
      tenant_id: attributes.lambdaContext?.tenantId,
    };
    const keys: LogAttributes = { ...logScopes.getStore() };
    for (const [key, value] of Object.entries(additional)) if (value !== undefined || !(key in keys)) keys[key] = value;
    return new LogItem({ attributes: base }).addAttributes(keys);
  }
}

export const logger = new Logger({ serviceName, logFormatter: new ScopedLogFormatter() });

export interface RequestCost {
  readonly route: string;
  readonly workspaceId: string | undefined;
  readonly status: number;
  readonly ledger: CapacityLedger;
  readonly durationMs: number;
  /** An HTTP route's latency budget; a queue job or a sweep has none. */
  readonly latencyBudgetMs?: number;
}

/** Rounded to a thousandth: DynamoDB bills in halves and wholes, the rest is float noise from summing. */
function units(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The EMF metrics each request emits, dimensioned by `service` and `route`: the stack's dashboard reads these names. */
export const requestMetricNames = {
  readUnits: 'ReadRequestUnits',
  writeUnits: 'WriteRequestUnits',
  pricedLines: 'PricedLines',
  /** 1 for a request slower than its route's budget, 0 for one within it: its average is the share over budget. */
  overLatencyBudget: 'OverLatencyBudget',
  /** 1 for each request answered 429 (a workspace's rate or quota): the callers held back. */
  rateLimited: 'RateLimited',
  /** 1 for each message a queue worker fails: the `WorkerErrors` alarm counts these beside Lambda's own errors. */
  workerFailures: 'WorkerFailures',
  /** Seconds since the commit of the oldest batch of any workspace not yet drained, as the sweeper saw it. */
  oldestUndrainedBatch: 'OldestUndrainedBatchSeconds',
  /** Seconds since the creation of the oldest write-back task of any workspace not yet applied, as the sweeper saw it. */
  oldestOpenWriteback: 'OldestOpenWritebackSeconds',
} as const;

/** In-process listeners of every request's cost: the benchmark reads them instead of parsing log lines. */
const costListeners = new Set<(cost: RequestCost) => void>();

export function listenToRequestCosts(listener: (cost: RequestCost) => void): () => void {
  costListeners.add(listener);
  return () => costListeners.delete(listener);
}

/**
 * Finance reads cost per request from this: one log line with the capacity units it consumed, and the same units
 * as CloudWatch metrics per route. A Metrics object per request keeps concurrent local requests from mixing dimensions.
 */
export function reportRequestCost(cost: RequestCost): void {
  for (const listener of costListeners) listener(cost);
  const readUnits = units(cost.ledger.readUnits);
  const writeUnits = units(cost.ledger.writeUnits);
  logger.info('request completed', {
    route: cost.route,
    workspaceId: cost.workspaceId,
    status: cost.status,
    readUnits,
    writeUnits,
    dynamoDbCalls: cost.ledger.calls,
    refusedWrites: cost.ledger.refusedWrites,
    durationMs: Math.round(cost.durationMs * 100) / 100,
  });
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addDimension('route', cost.route);
  metrics.addMetric(requestMetricNames.readUnits, MetricUnit.Count, readUnits);
  metrics.addMetric(requestMetricNames.writeUnits, MetricUnit.Count, writeUnits);
  if (cost.ledger.pricedLines > 0) metrics.addMetric(requestMetricNames.pricedLines, MetricUnit.Count, cost.ledger.pricedLines);
  if (cost.latencyBudgetMs !== undefined) {
    metrics.addMetric(requestMetricNames.overLatencyBudget, MetricUnit.Count, cost.durationMs > cost.latencyBudgetMs ? 1 : 0);
  }
  if (cost.status === 429) metrics.addMetric(requestMetricNames.rateLimited, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}

/**
 * A message a queue worker fails, for redelivery or the dead-letter queue: one ERROR line with the error's name,
 * message and stack, carrying its job's keys (the message, workspace, batch or event) from the scope it runs in, and
 * one count of the worker's failures. A worker answers a failed message in its batch response rather than failing the
 * invocation, so Lambda's own error count never sees it.
 */
export function reportWorkerFailure(route: string, error: unknown): void {
  logger.error('queue message failed', { route, error: error instanceof Error ? error : new Error(String(error)) });
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addDimension('route', route);
  metrics.addMetric(requestMetricNames.workerFailures, MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}

/** The sweeper's reading of the oldest batch still to drain, each minute: an alarm fires on a workspace held up. */
export function reportUndrainedBatches(oldestSeconds: number): void {
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addMetric(requestMetricNames.oldestUndrainedBatch, MetricUnit.Seconds, Math.round(oldestSeconds));
  metrics.publishStoredMetrics();
}

/** The sweeper's reading of the oldest write-back task not yet applied, each minute: an alarm fires on tasks that wait. */
export function reportOpenTaskAge(oldestSeconds: number): void {
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addMetric(requestMetricNames.oldestOpenWriteback, MetricUnit.Seconds, Math.round(oldestSeconds));
  metrics.publishStoredMetrics();
}
