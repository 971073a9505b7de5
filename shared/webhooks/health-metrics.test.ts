// Unit tests of the webhook health metrics: what a parked delivery and a disabled endpoint write for the alarm to read.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { reportWebhookHealth, webhookHealthMetricNames } from './health-metrics.ts';

/** The EMF documents written to stdout while `run` runs. */
function emitted(run: () => void): Array<Record<string, unknown>> {
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    write.mockRestore();
  }
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

afterEach(() => vi.unstubAllEnvs());

describe('webhook health metrics', () => {
  it('a parked delivery counts one WebhookDeliveriesParked in the service namespace, with no per-endpoint dimension', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const [document, ...others] = emitted(() => reportWebhookHealth('parked'));
    expect(others).toEqual([]);
    expect(document?.[webhookHealthMetricNames.parked]).toBe(1);
    expect(document?.service).toBe(serviceName);
    expect(JSON.stringify(document?._aws)).toContain(`"Namespace":"${metricsNamespace}"`);
    expect(JSON.stringify(document?._aws)).toContain('"Dimensions":[["service"]]');
    expect(document).not.toHaveProperty('endpointId');
  });

  it('a disabled endpoint counts one WebhookEndpointsDisabled', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const [document] = emitted(() => reportWebhookHealth('disabled'));
    expect(document?.[webhookHealthMetricNames.disabled]).toBe(1);
    expect(document).not.toHaveProperty(webhookHealthMetricNames.parked);
  });
});
