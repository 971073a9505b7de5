// Flushing what an instance holds (the cost ledger, leased quota lines) when Lambda shuts it down: a no-op internal extension, so that the runtime gets SIGTERM.
import { logger } from '#platform/observability.ts';

/** How long registering may take; Lambda's init allows 10 s, and a function must not spend them waiting on this. */
const REGISTER_TIMEOUT_MS = 1_000;

/**
 * Lambda sends the runtime SIGTERM before it shuts an execution environment down only when an extension is
 * registered; with none, the process is frozen and then killed, and whatever it held is lost. So the function
 * registers an internal extension of its own that asks for no events, as the Rust runtime's graceful-shutdown helper
 * does, and flushes on SIGTERM within the 500 ms Lambda gives a runtime with an internal extension. It must ask for
 * its next event once, or Lambda waits on it to end init; with no events asked for, that call never answers.
 * Outside Lambda (no AWS_LAMBDA_RUNTIME_API) it does nothing: local mode and the tests flush as they go.
 */
export async function flushOnShutdown(flush: () => Promise<unknown>, exit: () => void = () => process.exit(0)): Promise<void> {
  const runtimeApi = process.env.AWS_LAMBDA_RUNTIME_API;
  if (!runtimeApi) return;
  process.once('SIGTERM', () => {
    void flush()
      .catch((error: unknown) => logger.error('cost ledger flush at shutdown failed', { error: error as Error }))
      .finally(exit);
  });
  try {
    const base = `http://${runtimeApi}/2020-01-01/extension`;
    const registered = await fetch(`${base}/register`, {
      method: 'POST',
      headers: { 'Lambda-Extension-Name': 'cost-ledger', 'content-type': 'application/json' },
      body: JSON.stringify({ events: [] }),
      signal: AbortSignal.timeout(REGISTER_TIMEOUT_MS),
    });
    const identifier = registered.headers.get('lambda-extension-identifier');
    if (!registered.ok || !identifier) throw new Error(`the Extensions API answered ${registered.status}`);
    void fetch(`${base}/event/next`, { headers: { 'Lambda-Extension-Identifier': identifier } }).catch(() => undefined);
  } catch (error) {
    logger.warn('no shutdown signal for the cost ledger: counts of the last minute of this instance may be lost', {
      error: error as Error,
    });
  }
}

/** What the instance flushes at shutdown, in parallel: every module that holds counts adds its flush at init. */
const shutdownFlushes: Array<() => Promise<unknown>> = [];

/**
 * Adds a flush to what the instance runs on SIGTERM; the first one registers the one extension for all of them, so
 * that the cost ledger and the quota leases share the 500 ms Lambda gives.
 */
export async function onShutdown(flush: () => Promise<unknown>): Promise<void> {
  shutdownFlushes.push(flush);
  if (shutdownFlushes.length > 1) return;
  await flushOnShutdown(() => Promise.allSettled(shutdownFlushes.map((each) => each())));
}
