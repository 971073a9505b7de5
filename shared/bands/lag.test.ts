import { afterEach, describe, expect, it, vi } from 'vitest';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { BANDS_LAG_METRIC, reportBandsLag } from './lag.ts';

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

describe('the bands job lag', () => {
  it('is the seconds from the batch’s commit to the end of its bands job, in the service namespace', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    const [document, ...others] = emitted(() =>
      reportBandsLag({ committedAt: '2026-11-24T10:00:00.000Z' }, new Date('2026-11-24T10:01:30.250Z')),
    );
    expect(others).toEqual([]);
    expect(document?.[BANDS_LAG_METRIC]).toBe(90.25);
    expect(document?.service).toBe(serviceName);
    expect(JSON.stringify(document?._aws)).toContain(`"Namespace":"${metricsNamespace}"`);
    expect(JSON.stringify(document?._aws)).toContain('"Unit":"Seconds"');
  });

  it('is not reported for a batch that has no commit time', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    expect(emitted(() => reportBandsLag({}, new Date()))).toEqual([]);
  });
});
