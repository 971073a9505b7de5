// One run of the canary: the key read, one line priced, and the verdict reported as a log line and two metrics.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { logger } from '#platform/observability.ts';
import { type CanaryRun, priceOneLine } from './price-check.ts';

/** The metrics' names in the service's namespace; the stack's alarm reads them. */
export const canaryMetricNames = {
  /** 1 for a run that priced its line, 0 for one that did not: a period whose maximum is 0 had no good run. */
  success: 'CanarySuccess',
  /** Milliseconds from the call to its whole answer, as an ERP on the internet waits for it. */
  latency: 'CanaryLatency',
} as const;

/** What the secret the stack creates holds until the operator puts a key in it: read as no key, never sent. */
export const UNSET_KEY_PLACEHOLDER = 'unset: put an erp key here (docs/operations.md, "Alarms", PriceCanaryFailing)';

export interface CanarySetup {
  readonly apiUrl: string;
  readonly sku: string;
  /** The key's plaintext, read afresh each run: the operator sets or rotates it without a deploy. */
  readonly readKey: () => Promise<string | undefined>;
  readonly fetch?: typeof fetch;
}

/** A run that did not reach the API: it counts as a failure, as the API being down would. */
function unsent(outcome: string): CanaryRun {
  return { ok: false, status: 0, latencyMs: 0, outcome };
}

async function keyOrRun(readKey: CanarySetup['readKey']): Promise<string | CanaryRun> {
  try {
    const key = (await readKey())?.trim();
    return key && key !== UNSET_KEY_PLACEHOLDER ? key : unsent('no key in the secret');
  } catch (error) {
    return unsent(`key unreadable (${error instanceof Error ? error.name : 'Error'})`);
  }
}

/** Writes the run's one line (never the key) and its metrics; no dimension but `service`, so the alarm reads one series. */
export function reportCanaryRun(run: CanaryRun, sku: string): void {
  const line = { ok: run.ok, status: run.status, latencyMs: run.latencyMs, outcome: run.outcome, sku };
  if (run.ok) logger.info('canary priced a line', line);
  else logger.warn('canary failed to price a line', line);
  const metrics = new Metrics({ namespace: metricsNamespace, serviceName });
  metrics.addMetric(canaryMetricNames.success, MetricUnit.Count, run.ok ? 1 : 0);
  if (run.status !== 0) metrics.addMetric(canaryMetricNames.latency, MetricUnit.Milliseconds, run.latencyMs);
  metrics.publishStoredMetrics();
}

export async function runCanary(setup: CanarySetup): Promise<CanaryRun> {
  const key = await keyOrRun(setup.readKey);
  const run = typeof key === 'string' ? await priceOneLine({ apiUrl: setup.apiUrl, apiKey: key, sku: setup.sku, fetch: setup.fetch }) : key;
  reportCanaryRun(run, setup.sku);
  return run;
}
