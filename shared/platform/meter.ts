// The meter each request and job carries: the DynamoDB capacity units, table calls, queue requests and priced lines its work consumed.
import { AsyncLocalStorage } from 'node:async_hooks';

export class CapacityLedger {
  readUnits = 0;
  writeUnits = 0;
  calls = 0;
  /** Writes a condition refused: each is charged like a write, and says how much requests contend for the same items. */
  refusedWrites = 0;
  /** SQS requests made for it (sends; a worker adds the receive and delete of its message), for the cost ledger. */
  queueRequests = 0;
  /** Lines priced and charged to the month's quota (a refund takes them back), for the cost ledger. */
  pricedLines = 0;

  add(kind: 'read' | 'write', units: number): void {
    if (kind === 'read') this.readUnits += units;
    else this.writeUnits += units;
  }
}

// Requests run concurrently in one process in local mode, so the ledger follows the async context, not a global.
const ledgers = new AsyncLocalStorage<CapacityLedger>();

export function withCapacityLedger<T>(ledger: CapacityLedger, run: () => T): T {
  return ledgers.run(ledger, run);
}

export function currentLedger(): CapacityLedger | undefined {
  return ledgers.getStore();
}
