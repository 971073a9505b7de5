// The DynamoDB client every handler uses, and the accounting that charges each call to the request's ledger.
import { type AttributeValue, type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CapacityLedger, currentLedger } from '#platform/meter.ts';
import { itemSize, transactionalWriteUnitsForSize, writeUnitsForSize } from './capacity.ts';
import { table } from './definition.ts';
import { traceAwsClient } from '#platform/tracing.ts';

const readCommands = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const writeCommands = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
  'BatchExecuteStatementCommand',
]);

type Marshalled = Record<string, AttributeValue>;

interface TransactWriteEntry {
  Put?: { Item?: Marshalled };
  Update?: { Key?: Marshalled; ExpressionAttributeValues?: Marshalled };
  Delete?: { Key?: Marshalled };
  ConditionCheck?: { Key?: Marshalled };
}

function sumReported(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number {
  const list = consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed];
  return list.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}

/**
 * Transactions are charged from item sizes, not from what the endpoint reports: DynamoDB Local reports a flat
 * figure. An Update is billed on the larger of the old and new item, which the request does not show; it is
 * estimated from its key and values, so it is a floor. A Put also writes its index entries: indexes are kept
 * outside the transaction (they are read eventually consistent), so each entry is a standard write, one unit per
 * started KB of what the index projects. An Update's index changes are not in the request and are left out (a floor).
 */
export function transactWriteUnits(items: readonly TransactWriteEntry[]): number {
  let units = 0;
  for (const entry of items) {
    const shown = entry.Put?.Item
      ? itemSize(entry.Put.Item)
      : itemSize({
          ...(entry.Update?.Key ?? entry.Delete?.Key ?? entry.ConditionCheck?.Key ?? {}),
          ...(entry.Update?.ExpressionAttributeValues ?? {}),
        });
    units += transactionalWriteUnitsForSize(shown) + (entry.Put?.Item ? indexEntryUnits(entry.Put.Item) : 0);
  }
  return units;
}

interface BatchWriteEntry {
  PutRequest?: { Item?: Marshalled };
  DeleteRequest?: { Key?: Marshalled };
}

/** The index entries an item writes, each with its index partition and what it costs: its keys only, or the whole item, as the index projects it. */
export function indexEntriesOf(item: Marshalled): Array<{ index: string; partition: AttributeValue; units: number }> {
  return table.indexes.flatMap((index) => {
    const partition = item[index.partitionKey];
    const sort = item[index.sortKey];
    if (!partition || !sort) return [];
    const projected =
      index.projection === 'ALL'
        ? item
        : {
            [table.partitionKey]: item[table.partitionKey] ?? {},
            [table.sortKey]: item[table.sortKey] ?? {},
            [index.partitionKey]: partition,
            [index.sortKey]: sort,
          };
    return [{ index: index.name, partition, units: writeUnitsForSize(itemSize(projected as Marshalled)) }];
  });
}

function indexEntryUnits(item: Marshalled): number {
  return indexEntriesOf(item).reduce((sum, entry) => sum + entry.units, 0);
}

/**
 * BatchWriteItem is charged from item sizes, as DynamoDB bills it: each put one unit per started KB plus one per index
 * entry it writes, each delete at least one unit (the deleted item's size is not in the request, so it is a floor).
 * Asking DynamoDB to report it instead costs DynamoDB Local a fifth of its write throughput, and returns the same sum.
 */
export function batchWriteUnits(requests: readonly BatchWriteEntry[]): number {
  let units = 0;
  for (const request of requests) {
    const item = request.PutRequest?.Item;
    if (item) units += writeUnitsForSize(itemSize(item)) + indexEntryUnits(item);
    else if (request.DeleteRequest) units += 1;
  }
  return units;
}

function batchWriteRequests(payload: Record<string, unknown> | undefined): BatchWriteEntry[] {
  return Object.values((payload ?? {}) as Record<string, BatchWriteEntry[]>).flat();
}

/** A request's item key as text, from a marshalled or an unmarshalled item (output comes back unmarshalled). */
function requestKey(request: BatchWriteEntry): string {
  const item = (request.PutRequest?.Item ?? request.DeleteRequest?.Key ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : String((value as { S?: string } | undefined)?.S));
  return `${text(item[table.partitionKey])}\u0000${text(item[table.sortKey])}`;
}

/** Units of the requests DynamoDB wrote: all those sent, less those it handed back unprocessed. */
function writtenBatchUnits(sent: readonly BatchWriteEntry[], unprocessed: readonly BatchWriteEntry[]): number {
  const left = new Set(unprocessed.map(requestKey));
  return batchWriteUnits(sent.filter((request) => !left.has(requestKey(request))));
}

interface StatementEntry {
  Parameters?: AttributeValue[];
}

/**
 * PartiQL updates in a batch are charged from their parameters, one unit per started KB each, refused ones included: a
 * floor, like an Update in a transaction, since the item's size before the update is not in the request.
 */
export function statementWriteUnits(statements: readonly StatementEntry[]): number {
  let units = 0;
  for (const statement of statements) {
    const parameters = Object.fromEntries((statement.Parameters ?? []).map((value, index) => [`p${index}`, value]));
    units += writeUnitsForSize(itemSize(parameters));
  }
  return units;
}

/** The write units a rejected conditional write still costs: DynamoDB bills the attempt, the error carries no figure. */
function rejectedWriteUnits(commandName: string, input: Record<string, unknown>): number {
  if (commandName === 'TransactWriteItemsCommand') return transactWriteUnits((input.TransactItems ?? []) as TransactWriteEntry[]);
  const item = (input.Item ?? input.Key ?? {}) as Marshalled;
  return writeUnitsForSize(itemSize(item));
}

/** A write its condition refused; when asked for, the error carries the item that was there (marshalled). */
export function isConditionFailure(error: unknown): error is Error & { Item?: Record<string, AttributeValue> } {
  return (error as { name?: string } | undefined)?.name === 'ConditionalCheckFailedException';
}

export function chargeCall(
  ledger: CapacityLedger,
  commandName: string,
  input: Record<string, unknown>,
  outcome: { output: Record<string, unknown> } | { error: unknown },
): void {
  const isRead = readCommands.has(commandName);
  if (!isRead && !writeCommands.has(commandName)) return;
  ledger.calls += 1;
  if ('error' in outcome) {
    const name = (outcome.error as { name?: string }).name;
    if (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException') {
      ledger.refusedWrites += 1;
      // DynamoDB bills a refused write on the item already there when that is larger; a caller that asked for it
      // (ReturnValuesOnConditionCheckFailure) gets it in the error, so its size is known.
      const existing = (outcome.error as { Item?: Marshalled }).Item;
      const existingUnits = existing ? writeUnitsForSize(itemSize(existing)) : 0;
      ledger.add('write', Math.max(rejectedWriteUnits(commandName, input), existingUnits));
    }
    return;
  }
  if (commandName === 'TransactWriteItemsCommand') {
    ledger.add('write', transactWriteUnits((input.TransactItems ?? []) as TransactWriteEntry[]));
    return;
  }
  if (commandName === 'BatchExecuteStatementCommand') {
    ledger.add('write', statementWriteUnits((input.Statements ?? []) as StatementEntry[]));
    return;
  }
  if (commandName === 'BatchWriteItemCommand') {
    // Items left unprocessed were not written and are not billed; the retry that writes them is charged then.
    const sent = batchWriteRequests(input.RequestItems as Record<string, unknown>);
    ledger.add('write', writtenBatchUnits(sent, batchWriteRequests(outcome.output.UnprocessedItems as Record<string, unknown>)));
    return;
  }
  const reported = sumReported(outcome.output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined);
  ledger.add(isRead ? 'read' : 'write', pagedRead.has(commandName) ? Math.max(reported, input.ConsistentRead ? 1 : 0.5) : reported);
}

/**
 * A Query or a Scan page costs at least one read block even when it finds nothing, as DynamoDB bills it; DynamoDB Local
 * reports 0 for an empty page, which would hide what looking for something absent costs.
 */
const pagedRead = new Set(['QueryCommand', 'ScanCommand']);

export function createTableClient(client = new DynamoDBClient({})): DynamoDBDocumentClient {
  // The SDK's logger middleware filters every call's input and output for a logger the service never sets: on the
  // drain, with a thousand calls per thousand records, that walk was a sixth of the process's CPU.
  client.middlewareStack.remove('loggerMiddleware');
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const commandName = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      const chargedFromSizes = commandName === 'BatchWriteItemCommand' || commandName === 'BatchExecuteStatementCommand';
      if (readCommands.has(commandName) || (writeCommands.has(commandName) && !chargedFromSizes)) {
        input.ReturnConsumedCapacity = 'TOTAL';
      }
      return next(args);
    },
    // Before the request is serialized, so that DynamoDB reports what each call consumed.
    { step: 'initialize', priority: 'high', name: 'reportConsumedCapacity' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const commandName = context.commandName ?? '';
      // The input as sent: the document client has marshalled it, so sizes come from AttributeValues.
      const input = args.input as Record<string, unknown>;
      const ledger = currentLedger();
      try {
        const result = await next(args);
        if (ledger) chargeCall(ledger, commandName, input, { output: result.output as unknown as Record<string, unknown> });
        return result;
      } catch (error) {
        if (ledger) chargeCall(ledger, commandName, input, { error });
        throw error;
      }
    },
    { step: 'build', priority: 'high', name: 'capacityAccounting' },
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

let shared: DynamoDBDocumentClient | undefined;

/** One client per process, reused across invocations so that connections stay warm. */
export function tableClient(): DynamoDBDocumentClient {
  shared ??= createTableClient(traceAwsClient(new DynamoDBClient({})));
  return shared;
}
