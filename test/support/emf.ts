// For tests: the CloudWatch embedded-metric documents the service writes while a piece of code runs, parsed.
import { vi } from 'vitest';

/**
 * The EMF documents (JSON lines with an `_aws` block) written to stdout while `run` runs, with metrics switched on for
 * it: local mode switches them off in the environment it sets, which a run with the integration tests shares.
 */
export function emfDocuments(run: () => void): Array<Record<string, unknown>> {
  const documents: Array<Record<string, unknown>> = [];
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    for (const line of text.split('\n')) if (line.includes('"_aws"')) documents.push(JSON.parse(line) as Record<string, unknown>);
    return true;
  });
  try {
    run();
  } finally {
    write.mockRestore();
    vi.unstubAllEnvs();
  }
  return documents;
}
