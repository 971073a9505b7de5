// Counts of the table client's calls by operation (calls, items and index entries written, capacity units), for the benchmark and the cost tests.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CapacityLedger } from '#platform/meter.ts';
import { chargeCall } from './client.ts';
import { table } from './definition.ts';

type Marshalled = Record<string, AttributeValue>;

export interface OperationCount {
  calls: number;
  itemsWritten: number;
  /** Index entries the writes wrote; known only where DynamoDB reported capacity per index (see `TableCallCounts`). */
  indexEntriesWritten: number;
  readUnits: number;
  /** As the service charges them (`chargeCall`): the same figures the cost ledger and `cost report` show. */
  writeUnits: number;
}

function emptyCount(): OperationCount {
  return { calls: 0, itemsWritten: 0, indexEntriesWritten: 0, readUnits: 0, writeUnits: 0 };
}

type Outcome = { output: Record<string, unknown> } | { error: unknown };

interface WriteRequest {
  PutRequest?: { Item?: Marshalled };
  DeleteRequest?: { Key?: Marshalled };
}

interface TransactEntry {
  Put?: { Item?: Marshalled };
  Update?: unknown;
  Delete?: unknown;
  ConditionCheck?: unknown;
}

function keyText(request: WriteRequest): string {
  const item = (request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : String((value as { S?: string } | undefined)?.S));
  return `${text(item[table.partitionKey])}\u0000${text(item[table.sortKey])}`;
}

/** The indexes an item written whole has an entry in: those whose keys it carries. */
function indexesOf(item: Marshalled): string[] {
  return table.indexes.filter((index) => item[index.partitionKey] && item[index.sortKey]).map((index) => index.name);
}

/** Capacity DynamoDB reported per index, when asked for INDEXES; a batch call reports one entry per table. */
function reportedIndexUnits(output: Record<string, unknown>): Map<string, number> | undefined {
  const consumed = output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined;
  if (consumed === undefined) return undefined;
  const units = new Map<string, number>();
  for (const entry of Array.isArray(consumed) ? consumed : [consumed]) {
    for (const [name, capacity] of Object.entries(entry.GlobalSecondaryIndexes ?? {})) {
      units.set(name, (units.get(name) ?? 0) + (capacity.CapacityUnits ?? 0));
    }
  }
  return units;
}

/** What one successful write call wrote: items, and the items it wrote whole (whose index entries follow from their keys). */
function writtenBy(commandName: string, input: Record<string, unknown>, output: Record<string, unknown>) {
  if (commandName === 'BatchWriteItemCommand') {
    const sent = Object.values((input.RequestItems ?? {}) as Record<string, WriteRequest[]>).flat();
    const left = new Set(
      Object.values((output.UnprocessedItems ?? {}) as Record<string, WriteRequest[]>)
        .flat()
        .map(keyText),
    );
    const written = sent.filter((request) => !left.has(keyText(request)));
    return {
      items: written.length,
      whole: written.flatMap((request) => (request.PutRequest?.Item ? [request.PutRequest.Item] : [])),
      partial: written.filter((request) => !request.PutRequest).length,
    };
  }
  if (commandName === 'TransactWriteItemsCommand') {
    const entries = ((input.TransactItems ?? []) as TransactEntry[]).filter((entry) => !entry.ConditionCheck);
    const whole = entries.flatMap((entry) => (entry.Put?.Item ? [entry.Put.Item] : []));
    return { items: entries.length, whole, partial: entries.length - whole.length };
  }
  if (commandName === 'BatchExecuteStatementCommand') {
    const statements = (input.Statements ?? []) as Array<{ Statement?: string }>;
    const responses = (output.Responses ?? []) as Array<{ Error?: unknown }>;
    const written = statements.filter(
      (statement, index) => /^\s*(UPDATE|INSERT|DELETE)\b/i.test(statement.Statement ?? '') && !responses[index]?.Error,
    );
    return { items: written.length, whole: [], partial: written.length };
  }
  if (commandName === 'PutItemCommand') return { items: 1, whole: [input.Item as Marshalled], partial: 0 };
  if (commandName === 'UpdateItemCommand' || commandName === 'DeleteItemCommand') return { items: 1, whole: [], partial: 1 };
  return { items: 0, whole: [], partial: 0 };
}

/**
 * One count per operation, for the calls made inside `countTableCalls`. Index entries are counted only when
 * `indexes` is set, which asks DynamoDB to report capacity per index: that slows DynamoDB Local's batch writes, so a
 * timed run leaves it off. An item written whole has an entry in each index whose keys it carries; a single-item
 * update or delete wrote one in each index that reported capacity; in a batch or a transaction, the updates and
 * deletes are counted at one entry per unit their index reported beyond the whole items' entries (an upper bound).
 */
export class TableCallCounts {
  readonly operations = new Map<string, OperationCount>();
  /** Write units DynamoDB reported per index (only with `indexes`). */
  readonly indexWriteUnits = new Map<string, number>();

  readonly options: { readonly indexes: boolean };

  constructor(options: { readonly indexes: boolean } = { indexes: false }) {
    this.options = options;
  }

  record(commandName: string, input: Record<string, unknown>, outcome: Outcome): void {
    const ledger = new CapacityLedger();
    chargeCall(ledger, commandName, input, outcome);
    if (ledger.calls === 0) return;
    const operation = commandName.replace(/Command$/, '');
    const count = this.operations.get(operation) ?? emptyCount();
    this.operations.set(operation, count);
    count.calls += ledger.calls;
    count.readUnits += ledger.readUnits;
    count.writeUnits += ledger.writeUnits;
    if (!('output' in outcome)) return;
    const written = writtenBy(commandName, input, outcome.output);
    count.itemsWritten += written.items;
    const reported = this.options.indexes ? reportedIndexUnits(outcome.output) : undefined;
    if (!reported || written.items === 0) return;
    const transactional = commandName === 'TransactWriteItemsCommand' ? 2 : 1;
    const single = commandName === 'PutItemCommand' || commandName === 'UpdateItemCommand' || commandName === 'DeleteItemCommand';
    for (const index of table.indexes) {
      const units = reported.get(index.name) ?? 0;
      this.indexWriteUnits.set(index.name, (this.indexWriteUnits.get(index.name) ?? 0) + units);
      if (units <= 0) continue;
      if (single) {
        count.indexEntriesWritten += 1;
        continue;
      }
      const whole = written.whole.filter((item) => indexesOf(item).includes(index.name)).length;
      count.indexEntriesWritten += whole + Math.min(written.partial, Math.max(0, Math.round(units / transactional) - whole));
    }
  }

  /** All operations together. */
  total(): OperationCount {
    const sum = emptyCount();
    for (const count of this.operations.values()) {
      sum.calls += count.calls;
      sum.itemsWritten += count.itemsWritten;
      sum.indexEntriesWritten += count.indexEntriesWritten;
      sum.readUnits += count.readUnits;
      sum.writeUnits += count.writeUnits;
    }
    return sum;
  }

  /** Adds another count's figures to this one's. */
  add(other: TableCallCounts): void {
    for (const [operation, count] of other.operations) {
      const mine = this.operations.get(operation) ?? emptyCount();
      this.operations.set(operation, mine);
      for (const field of Object.keys(count) as Array<keyof OperationCount>) mine[field] += count[field];
    }
    for (const [index, units] of other.indexWriteUnits) this.indexWriteUnits.set(index, (this.indexWriteUnits.get(index) ?? 0) + units);
  }
}

// Calls of concurrent requests interleave in one process: the count follows the async context, as the ledger does.
const scopes = new AsyncLocalStorage<TableCallCounts>();

/** Every table call made while `run` runs, and in whatever it starts, is added to `counts`. */
export function countTableCalls<T>(counts: TableCallCounts, run: () => T): T {
  return scopes.run(counts, run);
}

const counted = new WeakSet<object>();

/** The commands that report the capacity they consumed when asked to. */
const capacityCommands = new Set(
  [
    'GetItem',
    'BatchGetItem',
    'Query',
    'Scan',
    'TransactGetItems',
    'PutItem',
    'UpdateItem',
    'DeleteItem',
    'BatchWriteItem',
    'TransactWriteItems',
    'BatchExecuteStatement',
    'ExecuteStatement',
    'ExecuteTransaction',
  ].map((name) => `${name}Command`),
);

/** Adds the counting to a client's middleware (once); outside `countTableCalls` it does nothing. */
export function installCallCounting(client: DynamoDBDocumentClient): void {
  if (counted.has(client.middlewareStack)) return;
  counted.add(client.middlewareStack);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (scopes.getStore()?.options.indexes && capacityCommands.has(context.commandName ?? '')) {
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'INDEXES';
      }
      return next(args);
    },
    // After the client's own, which asks for TOTAL.
    { step: 'initialize', priority: 'low', name: 'countTableCallsIndexes' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const counts = scopes.getStore();
      if (!counts) return next(args);
      const commandName = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      try {
        const result = await next(args);
        counts.record(commandName, input, { output: result.output as unknown as Record<string, unknown> });
        return result;
      } catch (error) {
        counts.record(commandName, input, { error });
        throw error;
      }
    },
    { step: 'build', priority: 'low', name: 'countTableCalls' },
  );
}
