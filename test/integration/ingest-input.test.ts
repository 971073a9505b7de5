// Bad input on the ingest batch routes (stage, status, commit): each gets its documented error and leaves the batch as it was.
import { beforeAll, describe, expect, it } from 'vitest';
import { openBatch } from '#shared/batches/repository.ts';
import {
  batchRouteNames,
  batchRoutes,
  batchWithProducts,
  chunkKeys,
  commit,
  type ConnectorCaller,
  connectorCaller,
  customerRecord,
  expectError,
  expectRefusedWithoutEffect,
  expectStaged,
  openTestBatch,
  orderLine,
  orderRecord,
  productRecord,
  quoteLine,
  quoteRecord,
  readStatus,
  sampleProducts,
  secondConnector,
  snapshot,
  stage,
  stagedRecords,
  type TestBatch,
  unknownBatchId,
  waitForStatus,
  without,
  workspaceWithCap,
} from './ingest-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

let workspace: TestWorkspace;
let caller: ConnectorCaller;

beforeAll(async () => {
  workspace = await newWorkspace('Ingest Input Seller');
  caller = connectorCaller(workspace);
});

function invalid(param: string) {
  return { status: 422, code: 'invalid_request', param } as const;
}

describe('the staging body', () => {
  let batch: TestBatch;
  beforeAll(async () => {
    batch = await batchWithProducts(caller);
  });

  it('answers a body that is not JSON with 422 invalid_json and stages nothing', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, '{"entity": "product", "records": ['), {
      status: 422,
      code: 'invalid_json',
    });
  });

  it('answers a JSON array as the body with 422 invalid_request and stages nothing', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, [{ entity: 'product', records: [productRecord()] }]), {
      status: 422,
      code: 'invalid_request',
    });
  });

  it('refuses a call with no records, naming records', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: [] }), invalid('records'));
  });

  it('refuses a call of 1001 records, naming records, and stages none of them', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: sampleProducts(1001) }), invalid('records'));
  });

  it('refuses a call without records, naming records', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product' }), invalid('records'));
  });

  it('refuses records that are not an array, naming records', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: productRecord() }), invalid('records'));
  });

  it('stages a call of exactly 1000 records, all of them', async () => {
    await expectStaged(batch, { entity: 'product', records: sampleProducts(1000) });
  });

  it('refuses a call without entity, naming entity', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { records: [productRecord()] }), invalid('entity'));
  });

  it('refuses an entity that is not a string with invalid_request, naming entity', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 1, records: [productRecord()] }), invalid('entity'));
  });

  it('answers an entity kind the service does not know with 422 entity_not_supported, naming entity', async () => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'invoice', records: [{ number: 'INV-1' }] }), {
      status: 422,
      code: 'entity_not_supported',
      param: 'entity',
    });
  });

  it('refuses an unknown field beside entity and records, naming it', async () => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'product', records: [productRecord()], colour: 'red' }),
      invalid('colour'),
    );
  });

  it('refuses an unknown field inside a record, naming it by its path', async () => {
    const records = [productRecord({ sku: 'A' }), productRecord({ sku: 'B' }), productRecord({ sku: 'C', colour: 'red' })];
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records }), invalid('records[2].colour'));
  });

  it('refuses an unknown field inside a quote line, naming it by its path', async () => {
    const records = [quoteRecord({ lines: [quoteLine(), quoteLine({ colour: 'red' })] })];
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'quote', records }), invalid('records[0].lines[1].colour'));
  });

  it('accepts any keys inside attributes and stores them as sent', async () => {
    const attributes = { colour: 'red', 'weird key': [1, { deep: null }], constructor: 'kept', nested: { anything: true } };
    await expectStaged(batch, { entity: 'product', records: [productRecord({ sku: 'ATTR-1', attributes })] });
  });

  it('refuses attributes that are an array rather than an object', async () => {
    const records = [productRecord({ attributes: ['red'] })];
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records }), invalid('records[0].attributes'));
  });
});

describe('all-or-nothing staging', () => {
  it('refuses the whole call for one bad record at index 17, naming it, and stages none of the others', async () => {
    const batch = await batchWithProducts(caller);
    const records: Record<string, unknown>[] = Array.from({ length: 40 }, (_, index) => quoteRecord({ externalId: `Q-${index}` }));
    records[17] = quoteRecord({ externalId: 'Q-17', createdAt: '2023-02-29T10:00:00Z' });
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'quote', records }), invalid('records[17].createdAt'));
  });

  it('names a bad field deep inside a line of the first bad record', async () => {
    const batch = await batchWithProducts(caller);
    const records: Record<string, unknown>[] = Array.from({ length: 40 }, (_, index) => orderRecord({ externalId: `O-${index}` }));
    records[17] = orderRecord({ externalId: 'O-17', lines: [orderLine(), orderLine({ costCents: -1 })] });
    records[30] = orderRecord({ externalId: 'O-30', soldAt: 'yesterday' });
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'order', records }), invalid('records[17].lines[1].costCents'));
  });
});

describe('date-times in records', () => {
  const accepted = ['2024-02-29T10:00:00Z', '2000-02-29T00:00Z', '2024-03-01T10:00:00+05:30', '2024-03-01T10:00:00.123456-08:00'];
  const refused = [
    ['2023-02-29T10:00:00Z', 'a leap day in a common year'],
    ['1900-02-29T00:00Z', 'a leap day in a century year not divisible by 400'],
    ['2024-03-01T24:00:00Z', 'hour 24'],
    ['2024-03-01 10:00:00Z', 'a space instead of T'],
    ['2024-03-01T10:00:00', 'no zone'],
    ['2024-03-01T10:00:60Z', 'second 60'],
  ] as const;
  const fields = [
    ['quote', 'createdAt', (value: string) => quoteRecord({ createdAt: value })],
    ['order', 'soldAt', (value: string) => orderRecord({ soldAt: value })],
  ] as const;

  describe.each(fields)('on %s %s', (entity, field, build) => {
    it.each(accepted)('accepts %s', async (value) => {
      const batch = await batchWithProducts(caller);
      await expectStaged(batch, { entity, records: [build(value)] });
    });

    it.each(refused)('refuses %s (%s), naming the field', async (value) => {
      const batch = await batchWithProducts(caller);
      await expectRefusedWithoutEffect(batch, () => stage(batch, { entity, records: [build(value)] }), invalid(`records[0].${field}`));
    });
  });
});

describe('integers in records', () => {
  let batch: TestBatch;
  beforeAll(async () => {
    batch = await batchWithProducts(caller);
  });

  it('accepts costCents at the safe-integer maximum', async () => {
    await expectStaged(batch, { entity: 'product', records: [productRecord({ sku: 'MAX', costCents: 9007199254740991 })] });
  });

  it.each([
    ['one past the safe-integer maximum', 9007199254740992],
    ['a fraction', 1.5],
    ['a numeric string', '5'],
    ['a negative amount', -1],
  ])('refuses costCents that is %s', async (_case, costCents) => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'product', records: [productRecord({ costCents })] }),
      invalid('records[0].costCents'),
    );
  });

  it('accepts a negative stockOnHand, as an oversold product has', async () => {
    await expectStaged(batch, { entity: 'product', records: [productRecord({ sku: 'OVERSOLD', stockOnHand: -5 })] });
  });

  it('refuses a fractional stockOnHand', async () => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'product', records: [productRecord({ stockOnHand: 2.5 })] }),
      invalid('records[0].stockOnHand'),
    );
  });

  it.each([
    ['a quote line', 'quote', quoteRecord({ lines: [quoteLine({ costCents: 1.5 })] })],
    ['an order line', 'order', orderRecord({ lines: [orderLine({ costCents: '5' })] })],
  ])('refuses a bad costCents on %s, naming the line', async (_case, entity, record) => {
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity, records: [record] }), invalid('records[0].lines[0].costCents'));
  });
});

describe('quote and order fields', () => {
  let batch: TestBatch;
  beforeAll(async () => {
    batch = await batchWithProducts(caller);
  });

  it('refuses a line quantity of 0', async () => {
    const records = [quoteRecord({ lines: [quoteLine({ quantity: 0 })] })];
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'quote', records }), invalid('records[0].lines[0].quantity'));
  });

  it('accepts a fractional line quantity above 0', async () => {
    await expectStaged(batch, { entity: 'quote', records: [quoteRecord({ lines: [quoteLine({ quantity: 0.5 })] })] });
  });

  it('accepts a null pricingDecisionId', async () => {
    await expectStaged(batch, { entity: 'quote', records: [quoteRecord({ lines: [quoteLine({ pricingDecisionId: null })] })] });
  });

  it('refuses a quote line that leaves out pricingDecisionId, naming it', async () => {
    const records = [quoteRecord({ lines: [without(quoteLine(), 'pricingDecisionId')] })];
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'quote', records }),
      invalid('records[0].lines[0].pricingDecisionId'),
    );
  });

  it('refuses a quote with no lines', async () => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'quote', records: [quoteRecord({ lines: [] })] }),
      invalid('records[0].lines'),
    );
  });

  it('accepts an order whose customerExternalId is null', async () => {
    await expectStaged(batch, { entity: 'order', records: [orderRecord({ customerExternalId: null })] });
  });

  it('accepts an order without customerExternalId', async () => {
    await expectStaged(batch, { entity: 'order', records: [without(orderRecord(), 'customerExternalId')] });
  });

  it('refuses an order whose customerExternalId is empty', async () => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'order', records: [orderRecord({ customerExternalId: '' })] }),
      invalid('records[0].customerExternalId'),
    );
  });

  it('refuses an order with no lines', async () => {
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'order', records: [orderRecord({ lines: [] })] }),
      invalid('records[0].lines'),
    );
  });
});

describe('which batch a call names', () => {
  it.each(batchRouteNames)('answers a batch id that is not a uuid on %s with 422 invalid_request naming batchId', async (route) => {
    const response = await batchRoutes[route]('not-a-uuid', caller.key);
    expectError(response, invalid('batchId'));
  });

  it.each(batchRouteNames)('answers an unknown batch id on %s with 404 batch_not_found', async (route) => {
    const response = await batchRoutes[route](unknownBatchId(), caller.key);
    expectError(response, { status: 404, code: 'batch_not_found' });
  });

  it.each(batchRouteNames)("answers %s on another workspace's batch with 404 batch_not_found and leaves it alone", async (route) => {
    const batch = await batchWithProducts(caller);
    const stranger = await newWorkspace('Other Seller');
    await expectRefusedWithoutEffect(batch, () => batchRoutes[route](batch.batchId, stranger.keys.connector), {
      status: 404,
      code: 'batch_not_found',
    });
    expect((await readStatus(batch)).json.status).toBe('open');
  });

  it.each(batchRouteNames)("answers %s on another connector's batch in the same workspace with 404 batch_not_found", async (route) => {
    const batch = await batchWithProducts(caller);
    const other = await secondConnector(workspace.workspaceId);
    await expectRefusedWithoutEffect(batch, () => batchRoutes[route](batch.batchId, other.key), { status: 404, code: 'batch_not_found' });
  });

  it('lets a second connector work on its own batch while the first cannot see it', async () => {
    const other = await secondConnector(workspace.workspaceId);
    const batch = await batchWithProducts(other);
    expect((await readStatus(batch)).json).toMatchObject({ status: 'open', recordCount: 3 });
    expectError(await readStatus(batch, caller.key), { status: 404, code: 'batch_not_found' });
  });

  it.each(batchRouteNames)('answers %s with a key without the connector scope with 403 forbidden', async (route) => {
    const batch = await batchWithProducts(caller);
    await expectRefusedWithoutEffect(batch, () => batchRoutes[route](batch.batchId, workspace.keys.erp), {
      status: 403,
      code: 'forbidden',
    });
    await expectRefusedWithoutEffect(batch, () => batchRoutes[route](batch.batchId, workspace.keys.storefront), {
      status: 403,
      code: 'forbidden',
    });
  });
});

describe('entity order within a batch', () => {
  it('refuses products after customers with 409 batch_entity_order_violation, and takes the same kind again or a higher one', async () => {
    const batch = await openTestBatch(caller);
    await expectStaged(batch, { entity: 'customer', records: [customerRecord()] });

    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: [productRecord()] }), {
      status: 409,
      code: 'batch_entity_order_violation',
    });

    await expectStaged(batch, { entity: 'customer', records: [customerRecord({ externalId: 'C-2' })] });
    await expectStaged(batch, { entity: 'quote', records: [quoteRecord()] });
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'customer', records: [customerRecord()] }), {
      status: 409,
      code: 'batch_entity_order_violation',
    });
    await expectStaged(batch, { entity: 'order', records: [orderRecord()] });
    expect((await snapshot(batch)).entities).toEqual(['customer', 'quote', 'order']);
  });
});

describe('a batch that is no longer open', () => {
  it('refuses staging into and committing a committed batch with 409 batch_already_committed, before and after it drains', async () => {
    const batch = await batchWithProducts(caller);
    const committed = await commit(batch);
    expect(committed.status, committed.text).toBe(202);

    const refusal = { status: 409, code: 'batch_already_committed' } as const;
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: sampleProducts(2) }), refusal);
    await expectRefusedWithoutEffect(batch, () => commit(batch), refusal);

    expect(await waitForStatus(batch, 'drained')).toMatchObject({ status: 'drained', recordCount: 3 });
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'order', records: [orderRecord()] }), refusal);
    await expectRefusedWithoutEffect(batch, () => commit(batch), refusal);
  });

  it('fails an open batch older than 24 hours and refuses staging into it and committing it', async () => {
    const opened = await openBatch(caller, new Date(Date.now() - 25 * 3_600_000));
    const batch: TestBatch = { ...caller, batchId: opened.batchId };

    // Staging is refused even before anyone has read the batch and so recorded that it failed.
    expectError(await stage(batch, { entity: 'product', records: [productRecord()] }), { status: 409, code: 'batch_already_committed' });
    expect(await chunkKeys(batch)).toEqual([]);

    const status = await readStatus(batch);
    expect(status.status, status.text).toBe(200);
    expect(status.json).toMatchObject({
      status: 'failed',
      error: 'batch expired before commit',
      entities: [],
      recordCount: 0,
      skippedOverCap: 0,
    });

    const refusal = { status: 409, code: 'batch_already_committed' } as const;
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity: 'product', records: [productRecord()] }), refusal);
    await expectRefusedWithoutEffect(batch, () => commit(batch), refusal);
  });
});

describe('the commit body', () => {
  it('refuses a commit with a field in its body, naming it, and leaves the batch open', async () => {
    const batch = await batchWithProducts(caller);
    await expectRefusedWithoutEffect(batch, () => commit(batch, batch.key, { force: true }), invalid('force'));
    expect((await readStatus(batch)).json.status).toBe('open');
  });

  it('answers a commit whose body is not JSON with 422 invalid_json and leaves the batch open', async () => {
    const batch = await batchWithProducts(caller);
    await expectRefusedWithoutEffect(batch, () => commit(batch, batch.key, '{'), { status: 422, code: 'invalid_json' });
  });

  it('commits an empty batch, which drains to drained with recordCount 0', async () => {
    const batch = await openTestBatch(caller);
    const response = await commit(batch);
    expect(response.status, response.text).toBe(202);
    expect(response.json).toEqual({ jobId: expect.stringMatching(/^job_/) });

    const status = await waitForStatus(batch, 'drained');
    expect(status).toMatchObject({ status: 'drained', entities: [], recordCount: 0, skippedOverCap: 0 });
  });
});

describe('the batch record cap', () => {
  it('stages records up to the workspace cap in array order and counts the rest as skipped', async () => {
    const capped = await workspaceWithCap(150);
    const batch = await openTestBatch(connectorCaller(capped));
    const first = sampleProducts(100, 'first-');
    const second = sampleProducts(100, 'second-');

    expect((await stage(batch, { entity: 'product', records: first })).json).toEqual({ staged: 100 });
    const secondCall = await stage(batch, { entity: 'product', records: second });
    expect(secondCall.status, secondCall.text).toBe(202);
    expect(secondCall.json).toEqual({ staged: 50 });
    expect(await snapshot(batch)).toMatchObject({ status: 'open', recordCount: 150, skippedOverCap: 50 });
    expect(await stagedRecords(batch)).toEqual([...first, ...second.slice(0, 50)]);

    const chunksBefore = await chunkKeys(batch);
    const thirdCall = await stage(batch, { entity: 'product', records: sampleProducts(10, 'third-') });
    expect(thirdCall.status, thirdCall.text).toBe(202);
    expect(thirdCall.json).toEqual({ staged: 0 });
    expect(await snapshot(batch)).toMatchObject({ status: 'open', recordCount: 150, skippedOverCap: 60 });
    expect(await chunkKeys(batch)).toEqual(chunksBefore);
  });
});

describe('bounded input when staging', () => {
  /** `levels` objects, each the value of `a` in the one above: `{"a":{"a":…{"a":1}}}`. */
  function nested(levels: number): Record<string, unknown> {
    let value: Record<string, unknown> = { a: 1 };
    for (let level = 1; level < levels; level++) value = { a: value };
    return value;
  }

  it.each([
    ['a quote', 'quote', quoteRecord({ lines: Array.from({ length: 1001 }, () => quoteLine()) })],
    ['an order', 'order', orderRecord({ lines: Array.from({ length: 1001 }, () => orderLine()) })],
  ])("refuses %s of 1001 lines, naming that record's lines, and stages nothing", async (_name, entity, record) => {
    const batch = await batchWithProducts(caller);
    const records = [entity === 'quote' ? quoteRecord({ externalId: 'Q-0' }) : orderRecord({ externalId: 'O-0' }), record];
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity, records }), invalid('records[1].lines'));
  });

  it('refuses attributes nested 33 levels deep, on a record or on a line, naming the path into them, and stages nothing', async () => {
    const batch = await batchWithProducts(caller);
    const inside = '.a'.repeat(32);
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'product', records: [productRecord({ sku: 'OK' }), productRecord({ attributes: nested(33) })] }),
      invalid(`records[1].attributes${inside}`),
    );
    await expectRefusedWithoutEffect(
      batch,
      () => stage(batch, { entity: 'order', records: [orderRecord({ lines: [orderLine(), orderLine({ attributes: nested(33) })] })] }),
      invalid(`records[0].lines[1].attributes${inside}`),
    );
  });

  it('refuses attributes nested a hundred thousand levels deep with 422 invalid_request naming the path, not a fault', async () => {
    const batch = await batchWithProducts(caller);
    const body = JSON.stringify({ entity: 'product', records: [productRecord({ attributes: { a: 1 } })] }).replace(
      '{"a":1}',
      `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    );
    await expectRefusedWithoutEffect(batch, () => stage(batch, body), invalid(`records[0].attributes${'.a'.repeat(61)}`));
  });

  it('refuses a 10 MB body of five million nested arrays with 422 invalid_request, and stages nothing', async () => {
    const batch = await batchWithProducts(caller);
    const body = JSON.stringify({ entity: 'product', records: [productRecord({ attributes: { a: 1 } })] }).replace(
      '{"a":1}',
      `{"a":${'['.repeat(5_000_000)}${']'.repeat(5_000_000)}}`,
    );
    await expectRefusedWithoutEffect(batch, () => stage(batch, body), invalid(`records[0].attributes.a${'[0]'.repeat(58)}…`));
  });

  it.each([
    ['a product', 'sku', 'product', productRecord({ sku: 'x'.repeat(256) })],
    ['a customer', 'externalId', 'customer', customerRecord({ externalId: 'x'.repeat(256) })],
    ['a quote', 'lines[0].productSku', 'quote', quoteRecord({ lines: [quoteLine({ productSku: 'x'.repeat(256) })] })],
    ['an order', 'sourceQuoteExternalId', 'order', orderRecord({ sourceQuoteExternalId: 'x'.repeat(256) })],
  ])('refuses %s whose %s is 256 characters long, naming it, and stages nothing', async (_name, field, entity, record) => {
    const batch = await batchWithProducts(caller);
    await expectRefusedWithoutEffect(batch, () => stage(batch, { entity, records: [record] }), invalid(`records[0].${field}`));
  });
});
