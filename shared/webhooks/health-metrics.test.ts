// Unit tests of the webhook health metrics: what a parked delivery and a disabled endpoint write for the alarm to read.
import { describe, expect, it } from 'vitest';
import { emfDocuments } from '#test/support/emf.ts';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { reportWebhookHealth, webhookHealthMetricNames } from './health-metrics.ts';

describe('webhook health metrics', () => {
  it('a parked delivery counts one WebhookDeliveriesParked in the service namespace, with no per-endpoint dimension', () => {
    const [document, ...others] = emfDocuments(() => reportWebhookHealth('parked'));
    expect(others).toEqual([]);
    expect(document?.[webhookHealthMetricNames.parked]).toBe(1);
    expect(document?.service).toBe(serviceName);
    expect(JSON.stringify(document?._aws)).toContain(`"Namespace":"${metricsNamespace}"`);
    expect(JSON.stringify(document?._aws)).toContain('"Dimensions":[["service"]]');
    expect(document).not.toHaveProperty('endpointId');
  });

  it('a disabled endpoint counts one WebhookEndpointsDisabled', () => {
    const [document] = emfDocuments(() => reportWebhookHealth('disabled'));
    expect(document?.[webhookHealthMetricNames.disabled]).toBe(1);
    expect(document).not.toHaveProperty(webhookHealthMetricNames.parked);
  });
});
