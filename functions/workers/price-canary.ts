// The canary, run on a schedule: prices one line through the public API with an erp key from Secrets Manager, and reports whether it could.
import { canarySettings } from '#platform/config.ts';
import { tracedHandler } from '#platform/tracing.ts';
import { readKeySecret } from '#shared/canary/key-secret.ts';
import { runCanary } from '#shared/canary/run.ts';

export const handler = tracedHandler('priceCanary', async () => {
  const { apiUrl, keySecretId, sku } = canarySettings();
  const run = await runCanary({ apiUrl, sku, readKey: () => readKeySecret(keySecretId) });
  return { ok: run.ok, status: run.status, latencyMs: run.latencyMs };
});
