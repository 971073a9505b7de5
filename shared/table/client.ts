// The DynamoDB client every handler uses, and the accounting that charges each call to the request's ledger.
import { type AttributeValue, type ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type CapacityLedger, currentLedger, itemSize, transactionalWriteUnitsForSize, writeUnitsForSize } from './capacity.ts';

const readCommands = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);
const writeCommands = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
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
 * estimated from its key and values, so it is a floor.
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
    units += transactionalWriteUnitsForSize(shown);
  }
  return units;
}

/** The write units a rejected conditional write still costs: DynamoDB bills the attempt, the error carries no figure. */
function rejectedWriteUnits(commandName: string, input: Record<string, unknown>): number {
  if (commandName === 'TransactWriteItemsCommand') return transactWriteUnits((input.TransactItems ?? []) as TransactWriteEntry[]);
  const item = (input.Item ?? input.Key ?? {}) as Marshalled;
  return writeUnitsForSize(itemSize(item));
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
      ledger.add('write', rejectedWriteUnits(commandName, input));
    }
    return;
  }
  if (commandName === 'TransactWriteItemsCommand') {
    ledger.add('write', transactWriteUnits((input.TransactItems ?? []) as TransactWriteEntry[]));
    return;
  }
  ledger.add(isRead ? 'read' : 'write', sumReported(outcome.output.ConsumedCapacity as ConsumedCapacity | ConsumedCapacity[] | undefined));
}

export function createTableClient(client = new DynamoDBClient({})): DynamoDBDocumentClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const commandName = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      if (readCommands.has(commandName) || writeCommands.has(commandName)) input.ReturnConsumedCapacity = 'TOTAL';
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
    // After the document client has marshalled the input, before it is serialized: sizes come from AttributeValues.
    { step: 'serialize', priority: 'high', name: 'capacityAccounting' },
  );
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

let shared: DynamoDBDocumentClient | undefined;

/** One client per process, reused across invocations so that connections stay warm. */
export function tableClient(): DynamoDBDocumentClient {
  shared ??= createTableClient();
  return shared;
}
