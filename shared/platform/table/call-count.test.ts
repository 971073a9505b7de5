// Unit tests of the per-operation counts of table calls: items and index entries written, and units as the service charges them.
import { describe, expect, it } from 'vitest';
import { TableCallCounts } from './call-count.ts';
import { table } from './definition.ts';

const [firstIndex] = table.indexes;
if (!firstIndex) throw new Error('the table has no index to count entries of');

/** An item with an entry in the first index, and one without any. */
const indexed = (id: string) => ({
  PK: { S: `P#${id}` },
  SK: { S: 'S' },
  [firstIndex.partitionKey]: { S: 'I' },
  [firstIndex.sortKey]: { S: id },
});
const plain = (id: string) => ({ PK: { S: `P#${id}` }, SK: { S: 'S' } });
const reported = (units: number) => ({ CapacityUnits: units, GlobalSecondaryIndexes: { [firstIndex.name]: { CapacityUnits: units } } });

describe('counting table calls by operation', () => {
  it('counts the items a batch write wrote, not those it left unprocessed, and their index entries from the keys they carry', () => {
    const counts = new TableCallCounts({ indexes: true });
    const requests = [indexed('a'), indexed('b'), plain('c')].map((Item) => ({ PutRequest: { Item } }));
    counts.record(
      'BatchWriteItemCommand',
      { RequestItems: { service: requests } },
      { output: { UnprocessedItems: { service: [requests[1]] }, ConsumedCapacity: [reported(1)] } },
    );
    expect(counts.operations.get('BatchWriteItem')).toMatchObject({ calls: 1, itemsWritten: 2, indexEntriesWritten: 1 });
    expect(counts.indexWriteUnits.get(firstIndex.name)).toBe(1);
  });

  it('counts one entry in each index a single update reported capacity for', () => {
    const counts = new TableCallCounts({ indexes: true });
    counts.record('UpdateItemCommand', { Key: plain('a') }, { output: { ConsumedCapacity: reported(2) } });
    counts.record('UpdateItemCommand', { Key: plain('b') }, { output: { ConsumedCapacity: { CapacityUnits: 1 } } });
    expect(counts.operations.get('UpdateItem')).toMatchObject({ calls: 2, itemsWritten: 2, indexEntriesWritten: 1, writeUnits: 3 });
  });

  it('leaves index entries uncounted unless capacity is reported per index', () => {
    const counts = new TableCallCounts({ indexes: false });
    counts.record(
      'BatchWriteItemCommand',
      { RequestItems: { service: [{ PutRequest: { Item: indexed('a') } }] } },
      { output: { ConsumedCapacity: [reported(1)] } },
    );
    expect(counts.operations.get('BatchWriteItem')).toMatchObject({ itemsWritten: 1, indexEntriesWritten: 0 });
  });

  it('counts the writes of a transaction but not its condition checks, and the statements a batch of them applied', () => {
    const counts = new TableCallCounts();
    counts.record(
      'TransactWriteItemsCommand',
      { TransactItems: [{ Put: { Item: plain('a') } }, { ConditionCheck: { Key: plain('b') } }] },
      { output: {} },
    );
    const statement = { Statement: 'UPDATE "service" SET x = ? WHERE PK = ? AND SK = ?', Parameters: [{ S: 'v' }, { S: 'P' }, { S: 'S' }] };
    counts.record(
      'BatchExecuteStatementCommand',
      { Statements: [statement, statement] },
      { output: { Responses: [{}, { Error: { Code: 'ConditionalCheckFailed' } }] } },
    );
    expect(counts.operations.get('TransactWriteItems')).toMatchObject({ calls: 1, itemsWritten: 1, writeUnits: 4 });
    expect(counts.operations.get('BatchExecuteStatement')).toMatchObject({ calls: 1, itemsWritten: 1 });
  });

  it('charges reads as reported, and a refused write as a call that wrote nothing', () => {
    const counts = new TableCallCounts();
    counts.record('QueryCommand', {}, { output: { ConsumedCapacity: { CapacityUnits: 2.5 } } });
    const refused = Object.assign(new Error('refused'), { name: 'ConditionalCheckFailedException' });
    counts.record('PutItemCommand', { Item: plain('a') }, { error: refused });
    counts.record('DescribeTableCommand', {}, { output: {} });
    expect(counts.total()).toEqual({ calls: 2, itemsWritten: 0, indexEntriesWritten: 0, readUnits: 2.5, writeUnits: 1 });
    expect([...counts.operations.keys()].sort()).toEqual(['PutItem', 'Query']);
  });
});
