// The table's item calls with the table's name filled in: a write its condition refuses comes back as a refusal, not a throw.
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  BatchExecuteStatementCommand,
  type BatchExecuteStatementCommandOutput,
  BatchGetCommand,
  DeleteCommand,
  type DeleteCommandInput,
  GetCommand,
  type GetCommandInput,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
  ScanCommand,
  type ScanCommandInput,
  type ScanCommandOutput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '../config.ts';
import { isConditionFailure, tableClient } from './client.ts';
import type { PrimaryKey } from './key-parts.ts';

type Item = Record<string, unknown>;
type WithoutTable<T> = Omit<T, 'TableName'>;

/** A write that landed, with the attributes it asked for (`ReturnValues`), if any. */
export interface Written {
  readonly refused: false;
  readonly attributes: Item | undefined;
}

/**
 * A write whose condition did not hold; `stored` is the item that was there, when the call asked for it
 * (`ReturnValuesOnConditionCheckFailure`), and `error` the refusal as DynamoDB gave it, for a caller that throws it on.
 */
export interface Refused {
  readonly refused: true;
  readonly stored: Item | undefined;
  readonly error: Error;
}

export type WriteOutcome = Written | Refused;

/** Runs a conditional write: a refused condition is an answer, any other error is thrown on. */
async function conditional(write: () => Promise<{ Attributes?: Item }>): Promise<WriteOutcome> {
  try {
    const { Attributes } = await write();
    return { refused: false, attributes: Attributes };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { refused: true, stored: error.Item ? unmarshall(error.Item) : undefined, error };
  }
}

export async function getItem(input: WithoutTable<GetCommandInput>): Promise<Item | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ ...input, TableName: tableName() }));
  return Item;
}

export function putItem(input: WithoutTable<PutCommandInput>): Promise<WriteOutcome> {
  return conditional(() => tableClient().send(new PutCommand({ ...input, TableName: tableName() })));
}

export function updateItem(input: WithoutTable<UpdateCommandInput>): Promise<WriteOutcome> {
  return conditional(() => tableClient().send(new UpdateCommand({ ...input, TableName: tableName() })));
}

export function deleteItem(input: WithoutTable<DeleteCommandInput>): Promise<WriteOutcome> {
  return conditional(() => tableClient().send(new DeleteCommand({ ...input, TableName: tableName() })));
}

/** One page of a query on the table or one of its indexes. */
export function queryPage(input: WithoutTable<QueryCommandInput>): Promise<QueryCommandOutput> {
  return tableClient().send(new QueryCommand({ ...input, TableName: tableName() }));
}

/** One page of a scan of the whole table. */
export function scanPage(input: WithoutTable<ScanCommandInput>): Promise<ScanCommandOutput> {
  return tableClient().send(new ScanCommand({ ...input, TableName: tableName() }));
}

/** The items of these keys that exist, in one BatchGetItem (at most 100 keys); a missing one is simply not among them. */
export async function batchGetItems(keys: readonly PrimaryKey[], options: { readonly ConsistentRead?: boolean } = {}): Promise<Item[]> {
  const Keys = keys.map((key) => ({ PK: key.PK, SK: key.SK }));
  const { Responses } = await tableClient().send(new BatchGetCommand({ RequestItems: { [tableName()]: { ...options, Keys } } }));
  return Responses?.[tableName()] ?? [];
}

/**
 * PartiQL statements in one BatchExecuteStatement (at most 25), each answered on its own: a refused or throttled
 * statement is an entry of the answer, never a throw. A statement names the table in its text (`tableName()`).
 */
export async function executeStatementBatch(
  statements: ReadonlyArray<{ readonly Statement: string; readonly Parameters: unknown[] }>,
): Promise<NonNullable<BatchExecuteStatementCommandOutput['Responses']>> {
  const { Responses } = await tableClient().send(new BatchExecuteStatementCommand({ Statements: [...statements] }));
  return Responses ?? [];
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type TransactEntry = {
  [Kind in keyof TransactItem]?: WithoutTable<NonNullable<TransactItem[Kind]>>;
};

/**
 * An entry another module asks to ride in a transaction that does some work, built from the work's result, with how
 * that module reads a refusal of it: `refusedAt` throws the error that refusal means when the transaction failed on
 * the rider's own entry, at `index`, and returns otherwise (the stored answer of an Idempotency-Key rides so).
 */
export interface TransactRider<Result> {
  readonly entry: (result: Result) => Promise<TransactEntry>;
  readonly refusedAt: (error: unknown, index: number) => void;
}

/** A transaction entry on this table, as a transaction item for a caller that sends the transaction itself. */
export function onTable(entry: TransactEntry, TableName = tableName()): TransactItem {
  return Object.fromEntries(Object.entries(entry).map(([kind, body]) => [kind, { ...body, TableName }])) as TransactItem;
}

/** The reason codes of a cancelled transaction, one per entry in order; undefined for any other error. */
export function cancellationCodes(error: unknown): Array<string | undefined> | undefined {
  if ((error as { name?: string } | undefined)?.name !== 'TransactionCanceledException') return undefined;
  return ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code);
}

/** A transaction of entries on this table; the caller keeps its own handling of a cancelled transaction. */
export async function transactWrite(
  entries: readonly TransactEntry[],
  options: WithoutTable<Omit<TransactWriteCommandInput, 'TransactItems'>> = {},
) {
  const TableName = tableName();
  const TransactItems = entries.map((entry) => onTable(entry, TableName));
  return tableClient().send(new TransactWriteCommand({ ...options, TransactItems }));
}
