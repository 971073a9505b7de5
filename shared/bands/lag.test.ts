// Unit tests of the bands lag metric: what the end of a bands job writes for the lag alarm to read.
import { describe, expect, it } from 'vitest';
import { emfDocuments } from '#test/support/emf.ts';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { BANDS_LAG_METRIC, reportBandsLag } from './lag.ts';

describe('the bands job lag', () => {
  it('is the seconds from the batch’s commit to the end of its bands job, in the service namespace', () => {
    const [document, ...others] = emfDocuments(() =>
      reportBandsLag({ committedAt: '2026-11-24T10:00:00.000Z' }, new Date('2026-11-24T10:01:30.250Z')),
    );
    expect(others).toEqual([]);
    expect(document?.[BANDS_LAG_METRIC]).toBe(90.25);
    expect(document?.service).toBe(serviceName);
    expect(JSON.stringify(document?._aws)).toContain(`"Namespace":"${metricsNamespace}"`);
    expect(JSON.stringify(document?._aws)).toContain('"Unit":"Seconds"');
  });

  it('is not reported for a batch that has no commit time', () => {
    expect(emfDocuments(() => reportBandsLag({}, new Date()))).toEqual([]);
  });
});
