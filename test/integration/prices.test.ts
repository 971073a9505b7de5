// POST /api/v1/prices through the local gateway, priced from history drained into DynamoDB Local.
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { PriceRequestSchema } from '#shared/prices/request.ts';
import { tableName } from '#platform/config.ts';
import { keyDigest } from '#platform/table/key-parts.ts';
import { keys } from '#platform/table/keys.ts';
import { beginCall, completeCall, findDecision } from '#shared/prices/calls.ts';
import { GIVE_UP_BEFORE_DEADLINE_MS, OutOfTime, requestHash, servePriceCall } from '#shared/prices/serve.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { monthOf } from '#shared/workspaces/usage.ts';
import { tableClient } from '#platform/table/client.ts';
import { drain, okLines, pricesCall, pricingHistory, workspaceWith } from './prices-support.ts';
import { newWorkspace, type TestWorkspace } from './support.ts';

async function linesUsed(workspaceId: string): Promise<number> {
  const { Item } = await tableClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.usage(workspaceId, monthOf(Date.now())), ConsistentRead: true }),
  );
  return Number(Item?.lines ?? 0);
}

function reasonSum(line: Record<string, unknown>): number {
  return (line.reason as Array<{ marginDeltaBps: number }>).reduce((sum, entry) => sum + entry.marginDeltaBps, 0);
}

function marginBps(priceCents: number, costCents: number): number {
  return Math.round((10_000 * (priceCents - costCents)) / priceCents);
}

describe('pricing lines after a drain', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Priced Seller');
    await drain(seller, pricingHistory());
  }, 60_000);

  it('prices a 3-line call with a reason stack on every line that sums to the move from the base', async () => {
    const response = await pricesCall(seller.keys.erp, {
      lines: [
        { productSku: 'BOLT', customerExternalId: 'C-NEW', quantity: 10 },
        { productExternalId: 'EXT-BOLT', quantity: 10 },
        { productSku: 'NUT', customerId: 'C-1', quantity: 5, orderValueCents: 20_000, orderTotalQuantity: 50 },
      ],
    });
    const lines = okLines(response);
    expect(lines).toHaveLength(3);
    const decisionIds = new Set<string>();
    for (const line of lines) {
      expect(line.ok).toBe(true);
      expect(line.currency).toBe('USD');
      expect(Number.isInteger(line.priceCents)).toBe(true);
      expect(line.pricingDecisionId).toMatch(/^pd_/);
      decisionIds.add(line.pricingDecisionId as string);
      const reason = line.reason as Array<Record<string, unknown>>;
      expect(reason[0]).toMatchObject({ param: 'segment_target', marginDeltaBps: 0 });
      for (const entry of reason) expect(Object.keys(entry).sort()).toEqual(['label', 'marginDeltaBps', 'param', 'scope']);
      const explanation = line.explanation as Record<string, unknown>;
      expect(typeof explanation.short).toBe('string');
      expect(['hold_firm', 'negotiable', 'at_floor']).toContain(explanation.stance);
      expect(typeof line.reasonSummary).toBe('string');
      expect(['high', 'medium', 'low']).toContain(line.confidence);
      expect(line.confidenceScore).toBeGreaterThanOrEqual(0);
      expect(line.confidenceScore).toBeLessThanOrEqual(1);
      const final = Math.round(100 * (explanation.marginPct as number));
      const base = final - reasonSum(line);
      // The history sits around 30% margin; the base is drawn from it, not from the list price (31% for BOLT).
      expect(base).toBeGreaterThan(2_500);
      expect(base).toBeLessThan(3_600);
    }
    expect(decisionIds.size).toBe(3);
    // A customer's segment has history of its own; a line without a customer falls back to the category.
    expect((lines[0]?.reason as Array<{ scope: string }>)[0]?.scope).toBe('segment');
    expect((lines[1]?.reason as Array<{ scope: string }>)[0]?.scope).toBe('category');
  });

  it('prices a customer who historically pays more above a newcomer of the same segment', async () => {
    const lines = okLines(
      await pricesCall(seller.keys.erp, {
        lines: [
          { productSku: 'BOLT', customerExternalId: 'C-LOYAL', quantity: 12 },
          { productSku: 'BOLT', customerExternalId: 'C-NEW', quantity: 12 },
        ],
      }),
    );
    expect(lines[0]?.priceCents as number).toBeGreaterThan(lines[1]?.priceCents as number);
    const reason = lines[0]?.reason as Array<Record<string, unknown>>;
    expect(reason.find((entry) => entry.param === 'customer_history')).toMatchObject({ scope: 'customer' });
    expect((reason.find((entry) => entry.param === 'customer_history')?.marginDeltaBps as number) > 0).toBe(true);
  });

  it('prices a product of a category without history from the workspace band', async () => {
    const [line] = okLines(await pricesCall(seller.keys.erp, { lines: [{ productSku: 'NEW', quantity: 1 }] }));
    expect((line?.reason as Array<{ scope: string }>)[0]?.scope).toBe('workspace');
  });

  it('prices at the list price with low confidence when the workspace has no history at all', async () => {
    const empty = await newWorkspace('New Seller');
    await drain(empty, { product: pricingHistory().product });
    const lines = okLines(
      await pricesCall(empty.keys.erp, {
        lines: [
          { productSku: 'BOLT', quantity: 1 },
          { productSku: 'NEW', quantity: 3 },
        ],
      }),
    );
    expect(lines.map((line) => line.priceCents)).toEqual([1450, 1000]);
    expect(lines.map((line) => line.confidence)).toEqual(['low', 'low']);
    expect((lines[0]?.reason as Array<{ scope: string }>)[0]?.scope).toBe('product');
  }, 60_000);

  it('answers each line that cannot be priced with its own code, in its place, in a 200', async () => {
    const lines = okLines(
      await pricesCall(seller.keys.erp, {
        lines: [
          { productSku: 'NOPE', quantity: 1 },
          { productSku: 'BOLT', productExternalId: 'EXT-OTHER', quantity: 1 },
          { productSku: 'BOLT', customerExternalId: 'C-NOBODY', quantity: 1 },
          { productSku: 'BOLT', customerId: 'C-1', customerExternalId: 'C-2', quantity: 1 },
          { productSku: 'FREEBIE', quantity: 1 },
          { productSku: 'NUT', customerExternalId: 'C-CHF', quantity: 1 },
          { productSku: 'NUT', customerExternalId: 'C-GBP', quantity: 1 },
          { productSku: 'NUT', quantity: 1 },
        ],
      }),
    );
    const codes = lines.map((line) => (line.ok ? 'ok' : (line.error as { code: string }).code));
    expect(codes).toEqual([
      'unknown_product',
      'unknown_product',
      'unknown_customer',
      'unknown_customer',
      'no_cost_basis',
      'fx_rate_unavailable',
      'fx_rate_stale',
      'ok',
    ]);
    expect(lines[0]).toEqual({
      ok: false,
      error: { code: 'unknown_product', message: expect.any(String), param: 'lines[0].productSku' },
    });
    expect((lines[5]?.error as { message: string }).message).toContain('CHF');
  });

  it('converts the price into the customer currency at the newest rate', async () => {
    const lines = okLines(
      await pricesCall(seller.keys.erp, {
        lines: [
          { productSku: 'BOLT', customerExternalId: 'C-EUR', quantity: 5 },
          { productSku: 'BOLT', customerExternalId: 'C-NEW', quantity: 5 },
        ],
      }),
    );
    expect(lines[0]?.currency).toBe('EUR');
    // Same segment, no customer history for either: the EUR price is the USD price at 1.1 USD per EUR.
    expect(Math.abs((lines[0]?.priceCents as number) - (lines[1]?.priceCents as number) / 1.1)).toBeLessThanOrEqual(1);
  });

  it('leaves the reasoning out for a storefront key and holds it to MAP', async () => {
    const body = { lines: [{ productSku: 'WASHER', quantity: 1 }] };
    const [storefront] = okLines(await pricesCall(seller.keys.storefront, body));
    const [erp] = okLines(await pricesCall(seller.keys.erp, body));
    expect(Object.keys(storefront ?? {}).sort()).toEqual(
      ['confidence', 'confidenceScore', 'currency', 'guardrailsApplied', 'ok', 'priceCents', 'pricingDecisionId'].sort(),
    );
    expect(storefront?.priceCents as number).toBeGreaterThanOrEqual(900);
    expect(storefront?.guardrailsApplied).toContain('map');
    // History puts the washer near 700; an ERP quote is not an advertised price, so MAP does not bind it by default.
    expect(erp?.priceCents as number).toBeLessThan(900);
    expect(erp?.reason).toBeDefined();
  });

  it('refuses a storefront key with 403 feature_not_enabled once the workspace lacks the storefront feature, but not an erp key', async () => {
    const closed = await workspaceWith({ features: ['writebacks', 'overview'] });
    const body = { lines: [{ productSku: 'WASHER', quantity: 1 }] };
    const refused = await pricesCall(closed.keys.storefront, body);
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({
      code: 'feature_not_enabled',
      message: 'The workspace does not have the storefront feature.',
    });
    expect((await pricesCall(closed.keys.erp, body)).status).toBe(200);
  });

  it('refuses a connector key with 403 forbidden', async () => {
    const response = await pricesCall(seller.keys.connector, { lines: [{ productSku: 'BOLT', quantity: 1 }] });
    expect(response.status).toBe(403);
    expect(response.json.error.code).toBe('forbidden');
  });
});

describe('price call validation', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Validated Seller');
  });

  it.each([
    ['no lines', { lines: [] }, 'lines'],
    ['101 lines', { lines: Array.from({ length: 101 }, () => ({ productSku: 'A', quantity: 1 })) }, 'lines'],
    ['a line without a product', { lines: [{ quantity: 1 }] }, 'lines[0].productSku'],
    ['a quantity of 0', { lines: [{ productSku: 'A', quantity: 0 }] }, 'lines[0].quantity'],
    ['a quantity over a billion', { lines: [{ productSku: 'A', quantity: 1_000_000_001 }] }, 'lines[0].quantity'],
    ['a quantity given as a string', { lines: [{ productSku: 'A', quantity: '1' }] }, 'lines[0].quantity'],
    ['a negative order value', { lines: [{ productSku: 'A', quantity: 1, orderValueCents: -1 }] }, 'lines[0].orderValueCents'],
    ['an order total quantity of 0', { lines: [{ productSku: 'A', quantity: 1, orderTotalQuantity: 0 }] }, 'lines[0].orderTotalQuantity'],
    ['an unknown field', { lines: [{ productSku: 'A', quantity: 1, discount: 5 }] }, 'lines[0].discount'],
    ['an empty sku', { lines: [{ productSku: '', quantity: 1 }] }, 'lines[0].productSku'],
  ])('refuses %s with 422 invalid_request naming the field, and counts nothing', async (_name, body, param) => {
    const response = await pricesCall(seller.keys.erp, body);
    expect(response.status, response.text).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', param });
    expect(await linesUsed(seller.workspaceId)).toBe(0);
  });

  it('refuses a body that is not JSON with 422 invalid_json', async () => {
    const response = await pricesCall(seller.keys.erp, '{"lines": [');
    expect(response.status).toBe(422);
    expect(response.json.error.code).toBe('invalid_json');
  });
});

describe('idempotency', () => {
  let seller: TestWorkspace;
  const body = { lines: [{ productSku: 'BOLT', customerExternalId: 'C-LOYAL', quantity: 12 }] };
  beforeAll(async () => {
    seller = await newWorkspace('Idempotent Seller');
    await drain(seller, pricingHistory());
  }, 60_000);

  it.each([
    ['missing', null],
    ['empty', ''],
    ['over 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé-1'],
  ])('refuses an Idempotency-Key that is %s with 422 invalid_request', async (_name, idempotencyKey) => {
    const response = await pricesCall(seller.keys.erp, body, idempotencyKey);
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'invalid_request', param: 'Idempotency-Key' });
  });

  it('replays a repeated call byte for byte with Idempotent-Replayed, without counting its lines again', async () => {
    const key = randomUUID();
    const first = await pricesCall(seller.keys.erp, body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const used = await linesUsed(seller.workspaceId);
    const replay = await pricesCall(seller.keys.erp, JSON.stringify(body, null, 2), key);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await linesUsed(seller.workspaceId)).toBe(used);
  });

  it('refuses the same key with a different body with 422 idempotency_key_reused', async () => {
    const key = randomUUID();
    expect((await pricesCall(seller.keys.erp, body, key)).status).toBe(200);
    const response = await pricesCall(seller.keys.erp, { lines: [{ productSku: 'BOLT', quantity: 13 }] }, key);
    expect(response.status).toBe(422);
    expect(response.json.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  });

  it('never replays an erp answer to a storefront key under the same key, nor the other way round', async () => {
    const key = randomUUID();
    const erp = await pricesCall(seller.keys.erp, body, key);
    expect(erp.status).toBe(200);
    expect(erp.json.lines[0].reason).toBeDefined();
    const storefront = await pricesCall(seller.keys.storefront, body, key);
    expect(storefront.status).toBe(422);
    expect(storefront.json.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(storefront.text).not.toContain('reason');

    const other = randomUUID();
    expect((await pricesCall(seller.keys.storefront, body, other)).status).toBe(200);
    expect((await pricesCall(seller.keys.erp, body, other)).json.error.code).toBe('idempotency_key_reused');
  });

  it('replays only to the key that made the call: another erp key of the workspace gets 422 idempotency_key_reused', async () => {
    const key = randomUUID();
    const first = await pricesCall(seller.keys.erp, body, key);
    expect(first.status).toBe(200);
    const otherErp = (await issueApiKey({ workspaceId: seller.workspaceId, family: 'svc_live', scopes: ['erp'] })).key;
    const other = await pricesCall(otherErp, body, key);
    expect(other.status).toBe(422);
    expect(other.json.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(other.json.error.message).toMatch(/another API key/);
    expect((await pricesCall(seller.keys.erp, body, key)).text).toBe(first.text);
  });

  it('runs 20 concurrent identical calls once: one 200 body, the rest identical replays or 409 in flight', async () => {
    const key = randomUUID();
    const used = await linesUsed(seller.workspaceId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => pricesCall(seller.keys.erp, body, key)));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(),
    ).toBe(true);
    const bodies = new Set(responses.filter((response) => response.status === 200).map((response) => response.text));
    expect(bodies.size).toBe(1);
    for (const response of responses.filter((candidate) => candidate.status === 409)) {
      expect(response.json.error.code).toBe('idempotency_key_in_flight');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(responses.filter((response) => response.status === 200 && !response.headers.get('idempotent-replayed'))).toHaveLength(1);
    expect(await linesUsed(seller.workspaceId)).toBe(used + 1);
  });

  it('keeps the same key apart in two workspaces', async () => {
    const other = await newWorkspace('Other Seller');
    const key = randomUUID();
    expect((await pricesCall(seller.keys.erp, body, key)).status).toBe(200);
    const response = await pricesCall(other.keys.erp, { lines: [{ productSku: 'BOLT', quantity: 1 }] }, key);
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(response.json.lines[0].error.code).toBe('unknown_product');
  });

  it('takes over a key whose first call died before answering, once its marker has run out', async () => {
    const key = randomUUID();
    const past = Date.now() - 1_000;
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.priceCall(seller.workspaceId, keyDigest(key)),
          callId: 'deadcall0000',
          bodyHash: 'x',
          state: 'running',
          lockedUntil: past,
          replayUntil: past + 86_400_000,
        },
      }),
    );
    const response = await pricesCall(seller.keys.erp, body, key);
    expect(response.status, response.text).toBe(200);
  });

  it('gives up a call that runs out of time before its deadline, letting the key go and giving the lines back', async () => {
    const key = randomUUID();
    const workspace = await getWorkspace(seller.workspaceId);
    if (!workspace) throw new Error('the test workspace is missing');
    const principal = {
      keyId: 'key_test',
      family: 'svc_live' as const,
      workspaceId: seller.workspaceId,
      scopes: ['erp' as const],
      connectorId: undefined,
      workspace,
    };
    const request = v.parse(PriceRequestSchema, body);
    const used = await linesUsed(seller.workspaceId);
    // No time is left beyond the margin the call keeps for undoing itself.
    const given = servePriceCall({
      principal,
      request,
      idempotencyKey: key,
      nowMs: Date.now(),
      remainingMs: () => GIVE_UP_BEFORE_DEADLINE_MS,
    });
    await expect(given).rejects.toBeInstanceOf(OutOfTime);
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.priceCall(seller.workspaceId, keyDigest(key)), ConsistentRead: true }),
    );
    expect(Item).toBeUndefined();
    expect(await linesUsed(seller.workspaceId)).toBe(used);
    // The retry runs afresh, and is charged once.
    expect((await pricesCall(seller.keys.erp, body, key)).status).toBe(200);
    expect(await linesUsed(seller.workspaceId)).toBe(used + 1);
  });

  it('fails a call that lost its key to another before storing, so that no answer names decisions nobody stored', async () => {
    const key = randomUUID();
    const started = await beginCall({ workspaceId: seller.workspaceId, callerId: seller.keyIds.erp }, key, 'hash', Date.now(), 1_000);
    if (started.kind !== 'fresh') throw new Error('the key should have been free');
    // Another call took the key over meanwhile (its marker had run out).
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.priceCall(seller.workspaceId, keyDigest(key)),
        UpdateExpression: 'SET callId = :other',
        ExpressionAttributeValues: { ':other': 'othercall000' },
      }),
    );
    await expect(completeCall(started.call, 200, '{"lines":[]}')).rejects.toThrow('lost its Idempotency-Key');
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.priceCall(seller.workspaceId, keyDigest(key)), ConsistentRead: true }),
    );
    expect(Item).toMatchObject({ callId: 'othercall000', state: 'running' });
  });

  it('answers a call whose marker is still live with 409 in flight, and Retry-After', async () => {
    const key = randomUUID();
    await tableClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.priceCall(seller.workspaceId, keyDigest(key)),
          callId: 'livecall0000',
          bodyHash: requestHash('erp', v.parse(PriceRequestSchema, body)),
          state: 'running',
          lockedUntil: Date.now() + 60_000,
          replayUntil: Date.now() + 86_400_000,
        },
      }),
    );
    const response = await pricesCall(seller.keys.erp, body, key);
    expect(response.status, response.text).toBe(409);
    expect(response.json.error.code).toBe('idempotency_key_in_flight');
    expect(response.headers.get('retry-after')).toBe('1');
    // A different body under a running key is refused as a reused key, whatever state the first call is in.
    const other = await pricesCall(seller.keys.erp, { lines: [{ productSku: 'NUT', quantity: 1 }] }, key);
    expect(other.json.error.code).toBe('idempotency_key_reused');
  });

  it('stores the answer compressed and keeps every decision findable by its id', async () => {
    const key = randomUUID();
    const lines = Array.from({ length: 100 }, (_, index) => ({
      productSku: ['BOLT', 'NUT', 'WASHER'][index % 3] as string,
      customerExternalId: `C-${index % 20}`,
      quantity: 1 + index,
    }));
    const response = await pricesCall(seller.keys.erp, { lines }, key);
    const priced = okLines(response);
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.priceCall(seller.workspaceId, keyDigest(key)) }),
    );
    expect((Item?.response as Uint8Array).byteLength).toBeLessThan(response.text.length / 4);
    for (const index of [0, 57, 99]) {
      const decision = await findDecision(seller.workspaceId, priced[index]?.pricingDecisionId as string);
      expect(decision?.line).toEqual(priced[index]);
    }
    expect(await findDecision(seller.workspaceId, 'pd_nonsense')).toBeUndefined();
  });

  it('starts a new call for a key past its 24-hour replay window and keeps the old call decisions', async () => {
    const key = randomUUID();
    const first = okLines(await pricesCall(seller.keys.erp, body, key));
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.priceCall(seller.workspaceId, keyDigest(key)),
        UpdateExpression: 'SET replayUntil = :past',
        ExpressionAttributeValues: { ':past': Date.now() - 1 },
      }),
    );
    const second = await pricesCall(seller.keys.erp, { lines: [{ productSku: 'NUT', quantity: 2 }] }, key);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    const decision = await findDecision(seller.workspaceId, first[0]?.pricingDecisionId as string);
    expect(decision?.line).toEqual(first[0]);
    const newer = await findDecision(seller.workspaceId, second.json.lines[0].pricingDecisionId as string);
    expect(newer?.line).toEqual(second.json.lines[0]);
  });

  it('stores nothing but a 200: a call refused for quota can be retried with the same key once there is room', async () => {
    const small = await workspaceWith({ monthlyLines: 2 });
    const key = randomUUID();
    const three = { lines: [1, 2, 3].map((quantity) => ({ productSku: 'X', quantity })) };
    const refused = await pricesCall(small.keys.erp, three, key);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('monthly_volume_exceeded');
    const { Item } = await tableClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.priceCall(small.workspaceId, keyDigest(key)) }),
    );
    expect(Item).toBeUndefined();
    const fits = await pricesCall(small.keys.erp, { lines: three.lines.slice(0, 2) }, key);
    expect(fits.status).toBe(200);
  });

  it('replays a call that spent the last of the month to its retry, while a new call is refused for volume', async () => {
    const small = await workspaceWith({ monthlyLines: 2 });
    const key = randomUUID();
    const two = { lines: [1, 2].map((quantity) => ({ productSku: 'X', quantity })) };
    const first = await pricesCall(small.keys.erp, two, key);
    expect(first.status).toBe(200);
    const retry = await pricesCall(small.keys.erp, two, key);
    expect(retry.status).toBe(200);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    // Another body under the key, or a new key, is a new call: the month has no room for it.
    expect((await pricesCall(small.keys.erp, { lines: two.lines.slice(0, 1) }, key)).json.error.code).toBe('monthly_volume_exceeded');
    expect((await pricesCall(small.keys.erp, two, randomUUID())).json.error.code).toBe('monthly_volume_exceeded');
    expect(await linesUsed(small.workspaceId)).toBe(2);
  });
});

describe('limits', () => {
  it('refuses a call that would cross the monthly quota with 429 monthly_volume_exceeded, pricing nothing', async () => {
    const seller = await workspaceWith({ monthlyLines: 5 });
    const three = { lines: [1, 2, 3].map((quantity) => ({ productSku: 'X', quantity })) };
    expect((await pricesCall(seller.keys.erp, three)).status).toBe(200);
    expect(await linesUsed(seller.workspaceId)).toBe(3);
    const refused = await pricesCall(seller.keys.erp, three);
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('monthly_volume_exceeded');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await linesUsed(seller.workspaceId)).toBe(3);
    expect((await pricesCall(seller.keys.erp, { lines: three.lines.slice(0, 2) })).status).toBe(200);
    // The month is spent: even an invalid call is refused for volume first, as the contract orders 429 before 422.
    const spent = await pricesCall(seller.keys.erp, { lines: [] });
    expect(spent.json.error.code).toBe('monthly_volume_exceeded');
  });

  it('refuses requests past the per-second rate with 429 rate_limited and Retry-After', async () => {
    const seller = await workspaceWith({ rateLimit: 2 });
    const body = { lines: [{ productSku: 'X', quantity: 1 }] };
    const responses = await Promise.all(Array.from({ length: 8 }, () => pricesCall(seller.keys.erp, body)));
    const limited = responses.filter((response) => response.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    for (const response of limited) {
      expect(response.json.error.code).toBe('rate_limited');
      expect(response.headers.get('retry-after')).toBe('1');
    }
    expect(responses.filter((response) => response.status === 200).length).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await pricesCall(seller.keys.erp, body)).status).toBe(200);
  });
});

describe('margins of priced lines', () => {
  it('never prices below cost', async () => {
    const seller = await newWorkspace('Cost Seller');
    await drain(seller, pricingHistory());
    const lines = okLines(await pricesCall(seller.keys.erp, { lines: [{ productSku: 'NUT', quantity: 1_000_000 }] }));
    expect(marginBps(lines[0]?.priceCents as number, 2000)).toBeGreaterThanOrEqual(0);
  }, 60_000);
});

describe('bounded input on price calls', () => {
  let seller: TestWorkspace;
  beforeAll(async () => {
    seller = await newWorkspace('Bounded Seller');
  });

  it.each(['productSku', 'productExternalId', 'customerId', 'customerExternalId'])(
    'refuses a %s of 256 characters with 422 invalid_request naming it, and counts nothing',
    async (field) => {
      const response = await pricesCall(seller.keys.erp, { lines: [{ productSku: 'A', quantity: 1, [field]: 'x'.repeat(256) }] });
      expect(response.status, response.text).toBe(422);
      expect(response.json.error).toEqual({
        code: 'invalid_request',
        message: `Invalid lines[0].${field}: a non-empty string of at most 255 characters.`,
        param: `lines[0].${field}`,
        requestId: response.headers.get('x-request-id'),
      });
      expect(await linesUsed(seller.workspaceId)).toBe(0);
    },
  );

  it('refuses a body nested a million levels deep with 422 invalid_request naming where, and counts nothing', async () => {
    const body = `{"lines":[{"quantity":1,"productSku":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}]}`;
    const response = await pricesCall(seller.keys.erp, body);
    expect(response.status, response.text).toBe(422);
    expect(response.json.error).toEqual({
      code: 'invalid_request',
      message: 'The request body nests objects and arrays more than 64 levels deep.',
      param: `lines[0].productSku${'[0]'.repeat(60)}…`,
      requestId: response.headers.get('x-request-id'),
    });
    expect(await linesUsed(seller.workspaceId)).toBe(0);
  });
});
