// Hostile `include` values around impact on GET /v1/prices/{sku}: near misses refused in the overview's envelope, nothing written.
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, type HostileRequest, type Outcome, type Probe, REFUSED, tryAll } from './hostile-input-support.ts';
import { encodeSegment, long } from './hostile-input-values.ts';
import { drain, LAMP } from './prices-support.ts';
import { newWorkspace } from './support.ts';
import { getPrice } from './writebacks-support.ts';

const GET_PRICE = endpointOf('getPrice');
const GROUP_TIMEOUT = 240_000;

let probe: Probe;

beforeAll(async () => {
  const workspace = await newWorkspace('Hostile Impact Seller');
  await drain(workspace, { product: [LAMP] });
  probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
  // The first read of a product stores its recommendation if the bands job has not; read once so that none is written later.
  expect((await getPrice(workspace.keys.pwLive, LAMP.sku)).status).toBe(200);
}, 120_000);

function request(label: string, include: string, outcome: Outcome = REFUSED): HostileRequest {
  return { endpoint: GET_PRICE, label, method: 'GET', target: `/v1/prices/${LAMP.sku}?include=${include}`, outcome };
}

describe('include=impact on the overview, under hostile input', () => {
  it(
    `refuses every near miss of impact on ${GET_PRICE} with 400 in its envelope, answers the exact part however spaced or repeated, and writes nothing`,
    async () => {
      const refused: Array<[string, string]> = [
        ['impact in capitals', 'IMPACT'],
        ['impact misspelt', 'impacts'],
        ['impact with an escaped NUL', 'impact%00'],
        ['impact with a zero-width space', 'impact%E2%80%8B'],
        ['impact with a right-to-left override', '%E2%80%AEimpact'],
        ['impact and a trailing comma', 'impact,'],
        ['impact after a leading comma', ',impact'],
        ['impact and an empty part', 'impact,,rationale'],
        ['impact and a semicolon', 'impact;rationale'],
        ['impact and an unknown part', 'impact,basis'],
        ['impact with a field path', 'impact.evidence'],
        ['impact with brackets', 'impact%5B%5D'],
        ['impact in JSON', encodeSegment('["impact"]')],
        ['impact 2,000 times with an unknown part', `${'impact,'.repeat(2000)}x`],
        ['an 8,000-character part beginning with impact', `impact${long(8000)}`],
        ['impact and __proto__', 'impact,__proto__'],
        ['impact as a status', 'not_estimated'],
        ['impact as a too_thin status', 'too_thin'],
      ];
      const answered: Outcome = { answered: 200 };
      const requests: HostileRequest[] = [
        ...refused.map(([label, include]) => request(label, include)),
        request('impact twice', 'impact,impact', answered),
        request('impact with spaces around it', '%20impact%20', answered),
        request('impact with every other part', 'drivers,impact,rationale', answered),
      ];
      expect(await tryAll(probe, requests)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );
});
