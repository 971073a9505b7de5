// Logs and metrics: the structured logger, and the one cost line and EMF metrics that end every request.
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, serviceName } from './config.ts';
import type { CapacityLedger } from './table/capacity.ts';

export const logger = new Logger({ serviceName });

export interface RequestCost {
  readonly route: string;
  readonly workspaceId: string | undefined;
  readonly status: number;
  readonly ledger: CapacityLedger;
  readonly durationMs: number;
}

/** Rounded to a thousandth: DynamoDB bills in halves and wholes, the rest is float noise from summing. */
function units(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * Finance reads cost per request from this: one log line with the capacity units it consumed, and the same units
 * as CloudWatch metrics per route. A Metrics object per request keeps concurrent local requests from mixing dimensions.
 */
/** In-process listeners of every request's cost: the benchmark reads them instead of parsing log lines. */
const costListeners = new Set<(cost: RequestCost) => void>();

export function listenToRequestCosts(listener: (cost: RequestCost) => void): () => void {
  costListeners.add(listener);
  return () => costListeners.delete(listener);
}

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
  metrics.addMetric('ReadRequestUnits', MetricUnit.Count, readUnits);
  metrics.addMetric('WriteRequestUnits', MetricUnit.Count, writeUnits);
  metrics.publishStoredMetrics();
}
