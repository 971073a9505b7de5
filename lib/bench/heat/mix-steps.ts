// The steps many request kinds of the heat model share: what every /api/v1 request costs besides its own work, and the outbox.
import type { HeatStep } from './model.ts';

const RATE = "Count a request against the workspace's per-second rate";

/** An instance's cost ledger, flushed once a minute whatever it served. */
export const COST_LEDGER_FLUSH: HeatStep = {
  pattern: "Flush an instance's cost ledger: what a route or worker cost a workspace on a UTC day",
  key: 'costLedger',
  per: 'instance-minute',
  items: 1,
  writeUnits: 1,
};

/** What every /api/v1 request costs besides its own work: its key and workspace (cached), its last use, the cost ledger. */
export function everyApiRequest(rateWindow: 'window' | 'count' | 'none'): HeatStep[] {
  return [
    { pattern: 'Authenticate a request by its API key', key: 'apiKey', items: 1, readUnits: 0.5 },
    { pattern: "Read a key's workspace (status, features, limits)", key: 'workspace', items: 1, readUnits: 0.5 },
    // Once per key and instance in 5 minutes.
    {
      pattern: "Record a key's last use, at most once per key in 5 minutes",
      key: 'apiKeyListing',
      per: 'instance-minute',
      items: 0.2,
      writeUnits: 1,
    },
    COST_LEDGER_FLUSH,
    ...(rateWindow === 'none' ? [] : [{ pattern: RATE, key: 'rateShard', args: { meter: 'api' }, items: 1, writeUnits: 1 }]),
    // A shard's first request of each second is refused by its window's condition and starts it anew (once a second
    // for each shard, whatever the requests: counted with the price calls).
    ...(rateWindow === 'window'
      ? [{ pattern: RATE, key: 'rateShard', args: { meter: 'api' }, per: 'second' as const, items: 1, writeUnits: 1 }]
      : []),
  ];
}

/** The pattern of a webhook event written in the transaction of the state change it reports. */
export const OUTBOX = 'Record a webhook event in the transaction of the state change it reports (the outbox)';
