// The heat model's webhook delivery: what one delivery of an event to one endpoint reads and writes (counted on the local stack: see test/integration/heat-model-requests.test.ts).
import type { RequestKind } from './model.ts';
import { COST_LEDGER_FLUSH, OUTBOX } from './mix-steps.ts';

export const webhookDelivery: RequestKind = {
  id: 'webhook',
  describe: 'a webhook delivery',
  rate: (profile) => profile.webhookDeliveriesPerSecond,
  steps: [
    { pattern: 'Read a webhook event to fan it out, to attempt it or to redeliver it', key: 'webhookEvent', items: 2, readUnits: 1 },
    { pattern: "List a workspace's webhook endpoints", key: 'webhookEndpointPrefix', items: 1, readUnits: 0.5 },
    // The attempt reads its endpoint again, as it stands then: its URL, secret and health.
    { pattern: 'Read a webhook endpoint', key: 'webhookEndpoint', items: 1, readUnits: 1 },
    {
      pattern: 'Read a delivery’s logged state before an attempt (drops a second receive of an attempt already logged)',
      key: 'webhookDelivery',
      items: 1,
      readUnits: 1,
    },
    { pattern: 'Log a delivery attempt and its delivery’s new state', key: 'webhookDelivery', items: 2, writeUnits: 2 },
    {
      pattern: 'Take and give back a webhook attempt’s in-flight slot (a lease under the endpoint’s and the workspace’s bounds)',
      key: 'webhookInFlight',
      items: 1,
      readUnits: 1,
      writeUnits: 2,
    },
    // Three conditional writes of a unit each: on a line idle since its last event the fan-out's move is refused (a
    // refused condition costs its write unit) and the line starts afresh; its attempts' places then move it on.
    {
      pattern: 'Take places on a workspace’s webhook line (its fair share of the shared queue)',
      key: 'webhookLine',
      items: 3,
      writeUnits: 1,
    },
    { pattern: 'Take a fanned-out webhook event off the sweeper’s list', key: 'webhookEvent', items: 1, writeUnits: 1 },
    // Taking the event off the sweeper's list deletes the entry its outbox write made.
    { pattern: OUTBOX, key: 'lookupKeys.undispatchedEvent', items: 1, writeUnits: 1 },
    COST_LEDGER_FLUSH,
  ],
};
