// Hostile input on the approvals: the history's path and query, and the approval's `confirm`, each refused in the overview's envelope with nothing written.
import { beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, type HostileRequest, type Probe, tryAll } from './hostile-input-support.ts';
import { encodeSegment, jsonText, long, unusualStrings } from './hostile-input-values.ts';
import { drain, LAMP } from './prices-support.ts';
import { newWorkspace } from './support.ts';

const HISTORY = endpointOf('listPriceApprovals');
const APPROVE = endpointOf('approvePrice');
const GROUP_TIMEOUT = 240_000;

function historyRequest(label: string, target: string): HostileRequest {
  return { endpoint: HISTORY, label, method: 'GET', target };
}

let probe: Probe;

beforeAll(async () => {
  const workspace = await newWorkspace('Hostile Approvals Seller');
  await drain(workspace, { product: [LAMP] });
  probe = { workspaceId: workspace.workspaceId, key: workspace.keys.pwLive };
}, 120_000);

describe('the approval history and the approval, under hostile input', () => {
  it(
    `answers hostile SKUs, limits, cursors and parameters on ${HISTORY} with a 4xx in its envelope, and writes nothing`,
    async () => {
      const limits = ['-1', '0', '1e2', '0x10', ' 5', '5 ', '101', '1.5', long(5000, '9'), '%00'];
      const cursors = [long(5000), 'bm90LWEtY3Vyc29y', encodeSegment('../../etc/passwd'), '%00', encodeSegment('\ud800')];
      const requests: HostileRequest[] = [
        ...limits.map((limit) =>
          historyRequest(`limit ${JSON.stringify(limit)}`, `/v1/prices/LAMP/approvals?limit=${encodeURIComponent(limit)}`),
        ),
        ...cursors.map((cursor) =>
          historyRequest(`cursor of ${cursor.length} characters`, `/v1/prices/LAMP/approvals?starting_after=${cursor}`),
        ),
        ...['__proto__', 'constructor', 'status', 'limit[]'].map((name) =>
          historyRequest(`parameter ${name}`, `/v1/prices/LAMP/approvals?${encodeURIComponent(name)}=1`),
        ),
        ...unusualStrings.map((sku) => historyRequest(`SKU ${JSON.stringify(sku)}`, `/v1/prices/${encodeSegment(sku)}/approvals`)),
        historyRequest('a SKU of 256 characters', `/v1/prices/${long(256)}/approvals`),
      ];
      expect(await tryAll(probe, requests)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );

  it(
    `answers a confirm that is not true or false on ${APPROVE} with a 4xx in its envelope, and approves nothing`,
    async () => {
      const values = ['true', 1, 0, null, {}, [], 'yes'];
      const requests: HostileRequest[] = values.map((confirm) => ({
        endpoint: APPROVE,
        label: `confirm ${JSON.stringify(confirm)}`,
        method: 'POST',
        target: '/v1/prices/approve',
        body: jsonText({ sku: 'LAMP', price: 20, confirm }),
      }));
      expect(await tryAll(probe, requests)).toEqual({ problems: [], writes: [] });
    },
    GROUP_TIMEOUT,
  );
});
