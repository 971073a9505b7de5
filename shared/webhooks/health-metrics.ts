// Parked deliveries and disabled endpoints as CloudWatch metrics, so that an alarm, not only a log line, tells the team.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, serviceName } from '#platform/config.ts';

/** The metrics' names in the service's namespace; the stack's alarm and dashboard read them. */
export const webhookHealthMetricNames = {
  parked: 'WebhookDeliveriesParked',
  disabled: 'WebhookEndpointsDisabled',
} as const;

export type WebhookHealthEvent = keyof typeof webhookHealthMetricNames;

/**
 * Counts one delivery parked after its last attempt, or one endpoint disabled after days of failing. No workspace or
 * endpoint dimension: each would be a metric of its own to pay for; the log line beside it names them.
 */
export function reportWebhookHealth(event: WebhookHealthEvent): void {
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addMetric(webhookHealthMetricNames[event], MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}
