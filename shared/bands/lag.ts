// The bands job's lag: how long after a batch's commit its bands and recommendations are recomputed, as a CloudWatch metric.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, serviceName } from '#platform/config.ts';

/** The metric's name in the service's namespace; the stack's dashboard graphs it. */
export const BANDS_LAG_METRIC = 'BandsLagSeconds';

/**
 * Seconds from the commit to the bands job's end: what a connector waits, after committing, for prices to follow its
 * data. It takes in the drain, the queue's waits and every bounce and continuation of both jobs.
 */
export function reportBandsLag(batch: { readonly committedAt?: string }, finishedAt: Date): void {
  if (!batch.committedAt) return;
  const seconds = Math.max(0, (finishedAt.getTime() - Date.parse(batch.committedAt)) / 1000);
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addMetric(BANDS_LAG_METRIC, MetricUnit.Seconds, Math.round(seconds * 1000) / 1000);
  metrics.publishStoredMetrics();
}
