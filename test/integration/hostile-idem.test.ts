// Hostile Idempotency-Keys and bodies on the creating overview routes that take a key: every one refused in the envelope, none writing anything, the key's marker included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, type HostileRequest, type Outcome, type Probe, tallyTable, tryAll } from './hostile-input-support.ts';
import { arbitraryText, jsonText, long, malformedBodies, samples } from './hostile-input-values.ts';
import { drain, LAMP } from './prices-support.ts';
import { call, newWorkspace } from './support.ts';

/** Groups of a hundred requests, some of them megabytes: generous, since the machine may be busy. */
const GROUP_TIMEOUT = 240_000;

const APPROVE = endpointOf('approvePrice');
const CREATE_ENDPOINT = endpointOf('createWebhookEndpoint');

/** A refusal the gateway may give itself, outside the envelope: headers over 16 KB, a broken request line. */
const headersTooLarge: Outcome = { refused: true, outside: [431] };
const badRequestLine: Outcome = { refused: true, outside: [400] };

/** Each route with a body it would act on: an approval that publishes, an endpoint that registers. */
const keyedRoutes = [
  { endpoint: APPROVE, target: '/v1/prices/approve', validBody: { sku: 'LAMP', price: 15 } },
  {
    endpoint: CREATE_ENDPOINT,
    target: '/v1/webhook-endpoints',
    validBody: { url: 'http://127.0.0.1:9/hooks', event_types: ['batch.drained'] },
  },
] as const;

let counter = 0;
const freshKey = () => `hostile-idem-${Date.now()}-${++counter}`;

describe.each(keyedRoutes)('$endpoint with an Idempotency-Key', (route) => {
  let probe: Probe;
  beforeAll(async () => {
    const workspace = await newWorkspace('Hostile Keys');
    await drain(workspace, { product: [LAMP] });
    // Read once, so that its recommendation is stored and no later read writes.
    expect((await call('/v1/prices/LAMP', { key: workspace.keys.pwLive })).status).toBe(200);
    probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
  }, 120_000);

  afterAll(() => {
    console.log(tallyTable());
  });

  const keyed = (label: string, value: string, outcome?: Outcome): HostileRequest => ({
    endpoint: route.endpoint,
    label,
    method: 'POST',
    target: route.target,
    body: jsonText(route.validBody),
    headers: [['Idempotency-Key', value]],
    ...(outcome ? { outcome } : {}),
  });

  it(
    'refuses every malformed key with a 4xx in the overview envelope, even with a body it would act on, and writes nothing',
    async () => {
      const printable = (value: string) => /^[\x20-\x7e]{1,255}$/.test(value);
      const arbitraryKeys = samples(arbitraryText(40), 24, 7)
        .map((text) => text.replace(/[\r\n]/g, '').trim())
        .filter((text) => text !== '' && !printable(text))
        .slice(0, 8);
      const result = await tryAll(probe, [
        keyed('an empty Idempotency-Key', ''),
        keyed('a 256-character Idempotency-Key', long(256)),
        keyed('an 8,000-character Idempotency-Key', long(8000)),
        keyed('a 20 KB Idempotency-Key', long(20_000), headersTooLarge),
        keyed('a tab inside', 'a\tb'),
        keyed('a DEL inside', 'a\u007fb', badRequestLine),
        keyed('a NUL inside', 'a\u0000b', badRequestLine),
        keyed('Latin-1 text', 'cl\u00e9'),
        keyed('an emoji', '🙂'),
        keyed('a right-to-left override', '\u202eabc'),
        keyed('a zero-width space', 'a\u200bb'),
        ...arbitraryKeys.map((text, index) =>
          keyed(`arbitrary text #${index} (${JSON.stringify(text).slice(0, 30)})`, text, badRequestLine),
        ),
      ]);
      expect(result).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );

  it(
    'refuses every malformed body sent with a fresh key, and lets the key go: nothing of the call stays in the table',
    async () => {
      const result = await tryAll(
        probe,
        malformedBodies.map(([label, body]) => ({
          endpoint: route.endpoint,
          label: `${label}, with a key`,
          method: 'POST',
          target: route.target,
          body,
          headers: [['Idempotency-Key', freshKey()]],
        })),
      );
      expect(result).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );
});
