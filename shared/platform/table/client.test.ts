// Unit tests of how DynamoDB calls are charged to a request.
import { describe, expect, it } from 'vitest';
import { CapacityLedger } from '#platform/meter.ts';
import { batchWriteUnits, chargeCall, transactWriteUnits } from './client.ts';

describe('charging DynamoDB calls to a request', () => {
  it('charges reads and writes as DynamoDB reports them', () => {
    const ledger = new CapacityLedger();
    chargeCall(ledger, 'GetItemCommand', {}, { output: { ConsumedCapacity: { CapacityUnits: 0.5 } } });
    chargeCall(ledger, 'BatchGetItemCommand', {}, { output: { ConsumedCapacity: [{ CapacityUnits: 1.5 }, { CapacityUnits: 1 }] } });
    chargeCall(ledger, 'PutItemCommand', {}, { output: { ConsumedCapacity: { CapacityUnits: 3 } } });
    expect(ledger).toMatchObject({ readUnits: 3, writeUnits: 3, calls: 3 });
  });

  it('charges a transaction from its item sizes, two units per started KB of each item, whatever is reported', () => {
    const big = { PK: { S: 'A' }, SK: { S: 'B' }, data: { S: 'x'.repeat(2500) } };
    const items = [{ Put: { Item: big } }, { ConditionCheck: { Key: { PK: { S: 'W' }, SK: { S: 'X' } } } }];
    expect(transactWriteUnits(items)).toBe(6 + 2);

    const ledger = new CapacityLedger();
    chargeCall(ledger, 'TransactWriteItemsCommand', { TransactItems: items }, { output: { ConsumedCapacity: [{ CapacityUnits: 99 }] } });
    expect(ledger.writeUnits).toBe(8);
  });

  it("charges a transaction's put for each index entry it writes, one standard unit per started KB of the entry", () => {
    // A write-back task: on the claimable index (keys only) it writes an entry of under a KB.
    const task = { PK: { S: 'WS#w#WRITEBACK#t' }, SK: { S: 'WRITEBACK' }, claimPk: { S: 'WS#w#CLAIM#c' }, claimSk: { S: '1' } };
    expect(transactWriteUnits([{ Put: { Item: task } }])).toBe(2 + 1);
  });

  it('charges an empty Query or Scan page the one read block DynamoDB bills for it, though it reports none', () => {
    const ledger = new CapacityLedger();
    chargeCall(ledger, 'QueryCommand', {}, { output: { ConsumedCapacity: { CapacityUnits: 0 } } });
    chargeCall(ledger, 'QueryCommand', { ConsistentRead: true }, { output: { ConsumedCapacity: { CapacityUnits: 0 } } });
    chargeCall(ledger, 'ScanCommand', {}, { output: { ConsumedCapacity: { CapacityUnits: 2.5 } } });
    expect(ledger.readUnits).toBe(0.5 + 1 + 2.5);
  });

  it('charges a write that its condition rejected, since DynamoDB bills the attempt', () => {
    const ledger = new CapacityLedger();
    const error = Object.assign(new Error('rejected'), { name: 'ConditionalCheckFailedException' });
    chargeCall(ledger, 'PutItemCommand', { Item: { PK: { S: 'A' }, SK: { S: 'B' } } }, { error });
    expect(ledger.writeUnits).toBe(1);
  });

  it('charges a rejected write on the item already there when the error carries it and it is larger', () => {
    const ledger = new CapacityLedger();
    const stored = { PK: { S: 'A' }, SK: { S: 'B' }, response: { B: new Uint8Array(5000) } };
    const error = Object.assign(new Error('rejected'), { name: 'ConditionalCheckFailedException', Item: stored });
    chargeCall(ledger, 'PutItemCommand', { Item: { PK: { S: 'A' }, SK: { S: 'B' } } }, { error });
    expect(ledger.writeUnits).toBe(5);
  });

  it('charges batched PartiQL updates from their parameters, a unit per started KB each', () => {
    const ledger = new CapacityLedger();
    const statement = (bytes: number) => ({ Parameters: [{ S: 'x'.repeat(bytes) }, { S: 'PK' }, { S: 'SK' }] });
    chargeCall(ledger, 'BatchExecuteStatementCommand', { Statements: [statement(10), statement(1500)] }, { output: {} });
    expect(ledger.writeUnits).toBe(1 + 2);
  });

  it('charges nothing for control-plane calls or for errors that consumed nothing', () => {
    const ledger = new CapacityLedger();
    chargeCall(ledger, 'CreateTableCommand', {}, { output: {} });
    chargeCall(ledger, 'GetItemCommand', {}, { error: Object.assign(new Error('x'), { name: 'ResourceNotFoundException' }) });
    expect(ledger).toMatchObject({ readUnits: 0, writeUnits: 0 });
  });

  it('charges a batch write from item sizes and index entries, and not for the items it left unprocessed', () => {
    const line = {
      PK: { S: 'WS#w#ORDER#O-1' },
      SK: { S: 'LINE#00000' },
      lookupPk: { S: 'WS#w#SKU#A' },
      lookupSk: { S: 'LINE#x#y' },
      historyPk: { S: 'WS#w#CAT#c' },
      historySk: { S: 's#y' },
      padding: { S: 'x'.repeat(1200) },
    };
    // The item is two started KB; its keys-only lookup entry one unit; its whole-item history entry two.
    expect(batchWriteUnits([{ PutRequest: { Item: line } }])).toBe(2 + 1 + 2);
    expect(batchWriteUnits([{ DeleteRequest: { Key: { PK: { S: 'A' }, SK: { S: 'B' } } } }])).toBe(1);

    const ledger = new CapacityLedger();
    const plain = { PutRequest: { Item: { PK: { S: 'A' }, SK: { S: 'B' } } } };
    chargeCall(
      ledger,
      'BatchWriteItemCommand',
      { RequestItems: { service: [{ PutRequest: { Item: line } }, plain] } },
      { output: { UnprocessedItems: { service: [plain] } } },
    );
    expect(ledger.writeUnits).toBe(5);
  });
});
