// Counts of the table's capacity units per partition key (base table and index partitions), per request or per job, for the heat model's check against the local stack.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { CapacityLedger, currentLedger } from '#platform/meter.ts';
import { itemSize } from '#platform/table/capacity.ts';
import { chargeCall, indexEntriesOf } from '#platform/table/client.ts';
import { table } from '#platform/table/definition.ts';

type Marshalled = Record<string, AttributeValue>;

export interface PartitionCount {
  /** Items read or written on the partition (a Query counts once, whatever it returns). */
  items: number;
  readUnits: number;
  writeUnits: number;
}

/** Units per partition key; an index partition's key is prefixed with its index name and a colon. */
export class PartitionTally {
  readonly partitions = new Map<string, PartitionCount>();

  add(partition: string, figures: Partial<PartitionCount>): void {
    const count = this.partitions.get(partition) ?? { items: 0, readUnits: 0, writeUnits: 0 };
    this.partitions.set(partition, count);
    count.items += figures.items ?? 0;
    count.readUnits += figures.readUnits ?? 0;
    count.writeUnits += figures.writeUnits ?? 0;
  }
}

const scopes = new AsyncLocalStorage<PartitionTally>();
// A request's calls follow its capacity ledger (set by the metering wrapper), which a listener of request costs sees.
const byLedger = new WeakMap<CapacityLedger, PartitionTally>();

/** Every table call made while `run` runs is tallied into `tally` (a worker's job, which has no request ledger). */
export function tallyPartitions<T>(tally: PartitionTally, run: () => T): T {
  return scopes.run(tally, run);
}

/** The tally of the request whose ledger this is, once it has made a call. */
export function tallyOfRequest(ledger: CapacityLedger): PartitionTally | undefined {
  return byLedger.get(ledger);
}

/** A key value as text, marshalled (input) or not (output, as the document client hands it back). */
function text(value: AttributeValue | string | number | undefined): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return value?.S ?? String(value?.N ?? '');
}

function isMarshalled(item: Record<string, unknown>): boolean {
  return Object.values(item).every((value) => typeof value === 'object' && value !== null && Object.keys(value).length === 1);
}

/** An output item's billed size, whichever form the client hands it back in. */
function outputItemSize(item: Record<string, unknown>): number {
  return itemSize(
    isMarshalled(item) ? (item as Marshalled) : marshall(item, { removeUndefinedValues: true, convertClassInstanceToMap: true }),
  );
}

function chargedUnits(commandName: string, input: Record<string, unknown>, output: Record<string, unknown>): CapacityLedger {
  const ledger = new CapacityLedger();
  chargeCall(ledger, commandName, input, { output });
  return ledger;
}

/** Index partitions a whole item writes an entry to, with what each entry costs (keys only, or the whole item). */
function indexEntries(item: Marshalled): Array<{ partition: string; units: number }> {
  return indexEntriesOf(item).map((entry) => ({ partition: `${entry.index}:${text(entry.partition)}`, units: entry.units }));
}

/** A write of one item: its units on its own partition, its index entries' on theirs. */
function tallyWrite(tally: PartitionTally, pk: string, units: number, item: Marshalled | undefined): void {
  const entries = item ? indexEntries(item) : [];
  let rest = units;
  for (const entry of entries) {
    const share = Math.min(rest, entry.units);
    tally.add(entry.partition, { items: 1, writeUnits: share });
    rest -= share;
  }
  tally.add(pk, { items: 1, writeUnits: rest });
}

/** The partition value a Query's key condition names (`<partition attribute> = :value`). */
function queriedPartition(input: Record<string, unknown>): string {
  const index = table.indexes.find((candidate) => candidate.name === input.IndexName);
  const attribute = index?.partitionKey ?? table.partitionKey;
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const placeholders = [
    attribute,
    ...Object.entries(names)
      .filter(([, name]) => name === attribute)
      .map(([placeholder]) => placeholder),
  ];
  const condition = String(input.KeyConditionExpression ?? '');
  const values = (input.ExpressionAttributeValues ?? {}) as Marshalled;
  for (const placeholder of placeholders) {
    const match = new RegExp(`(?:^|[\\s(])${placeholder.replace(/[#]/g, '\\#')}\\s*=\\s*(:[A-Za-z0-9_]+)`).exec(condition);
    if (match?.[1]) return `${index ? `${index.name}:` : ''}${text(values[match[1]])}`;
  }
  return `${index ? `${index.name}:` : ''}?`;
}

function tallyBatchGet(tally: PartitionTally, input: Record<string, unknown>, output: Record<string, unknown>): void {
  const requested = Object.entries((input.RequestItems ?? {}) as Record<string, { Keys?: Marshalled[]; ConsistentRead?: boolean }>);
  const returned = Object.values((output.Responses ?? {}) as Record<string, Array<Record<string, unknown>>>).flat();
  const unprocessed = new Set(
    Object.values((output.UnprocessedKeys ?? {}) as Record<string, { Keys?: Marshalled[] }>)
      .flatMap((entry) => entry.Keys ?? [])
      .map((key) => `${text(key[table.partitionKey])}\u0000${text(key[table.sortKey])}`),
  );
  const sizes = new Map(
    returned.map((item) => [
      `${text(item[table.partitionKey] as string)}\u0000${text(item[table.sortKey] as string)}`,
      outputItemSize(item),
    ]),
  );
  for (const [, request] of requested) {
    const perBlock = request.ConsistentRead ? 1 : 0.5;
    for (const key of request.Keys ?? []) {
      const id = `${text(key[table.partitionKey])}\u0000${text(key[table.sortKey])}`;
      if (unprocessed.has(id)) continue;
      // A projection does not lower the bill: a found item is read whole, 4 KB a block; a missing key costs one block.
      const blocks = Math.max(1, Math.ceil((sizes.get(id) ?? 0) / 4096));
      tally.add(text(key[table.partitionKey]), { items: 1, readUnits: perBlock * blocks });
    }
  }
}

/** A BatchWriteItem's writes, each on its own partition; what DynamoDB left unprocessed is not billed. */
function tallyBatchWrite(tally: PartitionTally, input: Record<string, unknown>, output: Record<string, unknown>): void {
  const left = new Set(
    Object.values(
      (output.UnprocessedItems ?? {}) as Record<
        string,
        Array<{ PutRequest?: { Item?: Marshalled }; DeleteRequest?: { Key?: Marshalled } }>
      >,
    )
      .flat()
      .map((request) => {
        const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
        return `${text(key[table.partitionKey])}\u0000${text(key[table.sortKey])}`;
      }),
  );
  for (const [tableName, requests] of Object.entries(
    (input.RequestItems ?? {}) as Record<string, Array<{ PutRequest?: { Item?: Marshalled }; DeleteRequest?: { Key?: Marshalled } }>>,
  )) {
    for (const request of requests) {
      const key = request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {};
      if (left.has(`${text(key[table.partitionKey])}\u0000${text(key[table.sortKey])}`)) continue;
      const units = chargedUnits('BatchWriteItemCommand', { RequestItems: { [tableName]: [request] } }, {}).writeUnits;
      tallyWrite(tally, text(key[table.partitionKey]), units, request.PutRequest?.Item);
    }
  }
}

function tallyCall(tally: PartitionTally, commandName: string, input: Record<string, unknown>, output: Record<string, unknown>): void {
  const single = (entryCommand: string, entryInput: Record<string, unknown>) => chargedUnits(entryCommand, entryInput, {});
  switch (commandName) {
    case 'GetItemCommand':
    case 'UpdateItemCommand':
    case 'DeleteItemCommand': {
      const charged = chargedUnits(commandName, input, output);
      const pk = text((input.Key as Marshalled)[table.partitionKey]);
      if (commandName === 'GetItemCommand') tally.add(pk, { items: 1, readUnits: charged.readUnits });
      else tally.add(pk, { items: 1, writeUnits: charged.writeUnits });
      return;
    }
    case 'PutItemCommand': {
      const item = input.Item as Marshalled;
      tallyWrite(tally, text(item[table.partitionKey]), chargedUnits(commandName, input, output).writeUnits, item);
      return;
    }
    case 'QueryCommand':
      tally.add(queriedPartition(input), { items: 1, readUnits: chargedUnits(commandName, input, output).readUnits });
      return;
    case 'BatchGetItemCommand':
      tallyBatchGet(tally, input, output);
      return;
    case 'BatchWriteItemCommand':
      tallyBatchWrite(tally, input, output);
      return;
    case 'TransactWriteItemsCommand':
      for (const entry of (input.TransactItems ?? []) as Array<Record<string, { Key?: Marshalled; Item?: Marshalled }>>) {
        const part = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
        const key = part?.Item ?? part?.Key ?? {};
        const units = single(commandName, { TransactItems: [entry] }).writeUnits;
        tallyWrite(tally, text(key[table.partitionKey]), units, entry.Put?.Item);
      }
      return;
    case 'BatchExecuteStatementCommand':
      for (const statement of (input.Statements ?? []) as Array<{ Parameters?: AttributeValue[] }>) {
        const units = single(commandName, { Statements: [statement] }).writeUnits;
        const pk = (statement.Parameters ?? []).map(text).find((value) => value.startsWith('WS#')) ?? '?';
        tally.add(pk, { items: 1, writeUnits: units });
      }
      return;
    default:
  }
}

/** A write its condition refused is billed all the same: on the item it named (a transaction's, on its first). */
function tallyRefusal(tally: PartitionTally, commandName: string, input: Record<string, unknown>, error: unknown): void {
  const ledger = new CapacityLedger();
  chargeCall(ledger, commandName, input, { error });
  if (ledger.writeUnits === 0) return;
  const entries = (input.TransactItems ?? []) as Array<Record<string, { Key?: Marshalled; Item?: Marshalled }>>;
  const first = entries[0] ? Object.values(entries[0])[0] : undefined;
  const key = (input.Key ?? input.Item ?? first?.Key ?? first?.Item ?? {}) as Marshalled;
  tally.add(text(key[table.partitionKey]), { items: 1, writeUnits: ledger.writeUnits });
}

const installed = new WeakSet<object>();

/** Adds the tally to a client's middleware (once); outside a tally scope or a request it does nothing. */
export function installPartitionCounting(client: DynamoDBDocumentClient): void {
  if (installed.has(client.middlewareStack)) return;
  installed.add(client.middlewareStack);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const ledger = currentLedger();
      let tally = scopes.getStore();
      if (!tally && ledger) {
        tally = byLedger.get(ledger) ?? new PartitionTally();
        byLedger.set(ledger, tally);
      }
      const commandName = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      try {
        const result = await next(args);
        if (tally) tallyCall(tally, commandName, input, result.output as unknown as Record<string, unknown>);
        return result;
      } catch (error) {
        if (tally) tallyRefusal(tally, commandName, input, error);
        throw error;
      }
    },
    { step: 'build', priority: 'low', name: 'tallyPartitions' },
  );
}
