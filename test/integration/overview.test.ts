// The overview surface through the local gateway: recommendations as drains leave them, and approvals published as write-back tasks.
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { issueApiKey } from '#shared/api-keys/repository.ts';
import { tableName } from '#platform/config.ts';
import { createConnector } from '#shared/connectors/repository.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { tableClient } from '#platform/table/client.ts';
import { keys } from '#platform/table/keys.ts';
import { drain, LAMP, okLines, pricesCall, pricingHistory, SHADE, workspaceWith } from './prices-support.ts';
import { type ApiResponse, call, newWorkspace, type TestWorkspace } from './support.ts';
import { ack, approve, claim, claimedTasks, getPrice, storedTask } from './writebacks-support.ts';
import { storedRecommendation } from './legacy-layout.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function expectOverviewError(response: ApiResponse, status: number, code: string, message?: RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.json).toEqual({
    error: {
      code,
      message: message ? expect.stringMatching(message) : expect.any(String),
      request_id: response.headers.get('x-request-id'),
    },
  });
}

const foreignProducts: ProductRecord[] = [
  { sku: 'YEN', name: 'Yen part', category: 'Adhesives', costCents: 1000, currentPriceCents: 1500, currency: 'JPY' },
  { sku: 'DINAR', name: 'Dinar part', category: 'Adhesives', costCents: 1000, currentPriceCents: 1555, currency: 'KWD' },
  { sku: 'CAPPED', name: 'Capped part', category: 'Adhesives', costCents: 1000, currentPriceCents: 1500, ceilingCents: 1600 },
];

describe('GET /v1/prices/{sku}', () => {
  let seller: TestWorkspace;

  beforeAll(async () => {
    seller = await newWorkspace('Overview Seller');
    const history = pricingHistory();
    await drain(seller, { ...history, product: [...history.product, ...foreignProducts] });
  }, 60_000);

  it('shows, in decimals of the currency, what a price call with no customer at quantity 1 gives, and the current price kept where no history stands', async () => {
    const skus = ['BOLT', 'NUT', 'NEW', 'YEN', 'DINAR'];
    // No quote of these was ever drained: no win model stands for their buyers, and the current price is kept.
    const unmodelled = new Set(['NEW', 'YEN', 'DINAR']);
    const lines = okLines(await pricesCall(seller.keys.erp, { lines: skus.map((productSku) => ({ productSku, quantity: 1 })) }));
    const digits: Record<string, number> = { BOLT: 2, NUT: 2, NEW: 2, YEN: 0, DINAR: 3 };
    for (const [index, sku] of skus.entries()) {
      const response = await getPrice(seller.keys.pwLive, sku);
      expect(response.status, response.text).toBe(200);
      const scale = 10 ** (digits[sku] ?? 2);
      const current = { BOLT: 1450, NUT: 2900, NEW: 1000, YEN: 1500, DINAR: 1555 }[sku] as number;
      const priceCents = unmodelled.has(sku) ? current : Number(lines[index]?.priceCents);
      expect(response.json).toEqual({
        sku,
        currency: lines[index]?.currency,
        recommended_price: priceCents / scale,
        current_price: current / scale,
        change_pct: Math.round(((priceCents - current) / current) * 10_000) / 100,
        updated_at: expect.stringMatching(ISO_MS),
      });
    }
    expect((await getPrice(seller.keys.pwLive, 'YEN')).json).toMatchObject({ currency: 'JPY', current_price: 1500 });
    expect((await getPrice(seller.keys.pwLive, 'DINAR')).json).toMatchObject({ currency: 'KWD', current_price: 1.555 });
  });

  it('adds the rationale and the guardrails for include=rationale, and the drivers for include=drivers', async () => {
    const rationale = await getPrice(seller.keys.pwLive, 'WASHER', '?include=rationale');
    expect(rationale.json).toMatchObject({ rationale: expect.stringMatching(/final/), guardrails: { floor: 9, ceiling: null } });
    expect(rationale.json).not.toHaveProperty('drivers');
    const drivers = await getPrice(seller.keys.pwLive, 'WASHER', '?include=drivers');
    expect(drivers.json.drivers).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'map', direction: 'up' })]));
    expect(drivers.json).not.toHaveProperty('rationale');
    const both = await getPrice(seller.keys.pwLive, 'CAPPED', '?include=rationale,drivers');
    expect(both.json).toMatchObject({ guardrails: { ceiling: 16 }, drivers: expect.any(Array), rationale: expect.any(String) });
  });

  it('floors the guardrails at MAP even where erp price calls ignore it', async () => {
    const response = await getPrice(seller.keys.pwLive, 'WASHER', '?include=rationale');
    expect(response.json.recommended_price).toBeGreaterThanOrEqual(9);
  });

  it.each(['?include=reasons', '?include=', '?include=rationale,,drivers', '?includes=rationale'])(
    'is 400 bad_request for %s',
    async (query) => {
      expectOverviewError(await getPrice(seller.keys.pwLive, 'BOLT', query), 400, 'bad_request');
    },
  );

  it('is 404 not_found for an unknown sku, and for a product without a cost, saying why', async () => {
    expectOverviewError(await getPrice(seller.keys.pwLive, 'NO-SUCH'), 404, 'not_found', /NO-SUCH/);
    expectOverviewError(await getPrice(seller.keys.pwLive, 'FREEBIE'), 404, 'not_found', /cost is 0/);
  });

  it('serves sandbox keys the same data, and refuses other keys in its own envelope', async () => {
    const live = await getPrice(seller.keys.pwLive, 'BOLT');
    const sandbox = await getPrice(seller.keys.pwTest, 'BOLT');
    expect(sandbox.json).toEqual(live.json);
    expectOverviewError(await getPrice(seller.keys.erp, 'BOLT'), 401, 'unauthorized');
    expectOverviewError(await call('/v1/prices/BOLT'), 401, 'unauthorized');
  });

  it("never shows another workspace's products", async () => {
    const stranger = await newWorkspace('Stranger');
    expectOverviewError(await getPrice(stranger.keys.pwLive, 'BOLT'), 404, 'not_found');
  });

  it('is 403 feature_not_enabled for a workspace without the overview', async () => {
    const without = await workspaceWith({ features: ['writebacks', 'storefront'] });
    expectOverviewError(await getPrice(without.keys.pwLive, 'BOLT'), 403, 'feature_not_enabled');
    expectOverviewError(await approve(without.keys.pwLive, { sku: 'BOLT', price: 1 }), 403, 'feature_not_enabled');
  });

  it('holds a workspace to its overview rate, answering 429 with Retry-After', async () => {
    const limited = await workspaceWith({ overviewRateLimit: 2 });
    const responses = await Promise.all(Array.from({ length: 6 }, () => getPrice(limited.keys.pwLive, 'BOLT')));
    const refused = responses.filter((response) => response.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expectOverviewError(refused[0] as ApiResponse, 429, 'rate_limited');
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
  });

  it('computes and keeps the recommendation of a product that has none yet', async () => {
    await tableClient().send(new DeleteCommand({ TableName: tableName(), Key: keys.recommendation(seller.workspaceId, 'NUT') }));
    const response = await getPrice(seller.keys.pwLive, 'NUT');
    expect(response.status, response.text).toBe(200);
    expect(await storedRecommendation(seller.workspaceId, 'NUT')).toMatchObject({
      sku: 'NUT',
      recommendedPriceCents: Math.round(response.json.recommended_price * 100),
    });
  });

  it('follows a later drain that changes the product', async () => {
    const before = await getPrice(seller.keys.pwLive, 'NEW');
    await drain(seller, { product: [{ sku: 'NEW', name: 'New line', category: 'Adhesives', costCents: 800, currentPriceCents: 1100 }] });
    const after = await getPrice(seller.keys.pwLive, 'NEW');
    expect(after.json.current_price).toBe(11);
    expect(after.json.updated_at > before.json.updated_at).toBe(true);
  });
});

/** A workspace whose products have no history: LAMP's recommendation is its list price, 15.00, within [12.00, 20.00]. */
async function lampSeller(): Promise<TestWorkspace> {
  const seller = await newWorkspace('Lamp Seller');
  await drain(seller, { product: [LAMP, SHADE] });
  return seller;
}

describe('POST /v1/prices/approve', () => {
  it('publishes a live approval as a task to every connector that receives write-backs, and to no other', async () => {
    const seller = await lampSeller();
    const second = await createConnector({ workspaceId: seller.workspaceId, name: 'Storefront sync', receivesWritebacks: true });
    const secondKey = await issueApiKey({
      workspaceId: seller.workspaceId,
      family: 'svc_live',
      scopes: ['connector'],
      connectorId: second.connectorId,
    });
    const silent = await createConnector({ workspaceId: seller.workspaceId, name: 'Read-only CRM', receivesWritebacks: false });
    const response = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 15 });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toEqual({
      approval_id: expect.stringMatching(/^apv_/),
      sku: 'LAMP',
      price: 15,
      currency: 'USD',
      approved_at: expect.stringMatching(ISO_MS),
      livemode: true,
      status: 'published',
      waiting_until: null,
      published_to: expect.arrayContaining([
        { connector_id: seller.connectorId, writeback_id: expect.stringMatching(/^wb_/) },
        { connector_id: second.connectorId, writeback_id: expect.stringMatching(/^wb_/) },
      ]),
    });
    expect(response.json.published_to).toHaveLength(2);
    expect(response.json.published_to.map((entry: { connector_id: string }) => entry.connector_id)).not.toContain(silent.connectorId);
    const published = new Map<string, string>(
      response.json.published_to.map((entry: { connector_id: string; writeback_id: string }) => [entry.connector_id, entry.writeback_id]),
    );
    const [task] = claimedTasks(await claim(seller.keys.connector));
    expect(task).toMatchObject({
      id: published.get(seller.connectorId),
      productSku: 'LAMP',
      productExternalId: 'EXT-LAMP',
      priceCents: 1500,
      currency: 'USD',
      target: { connectorId: seller.connectorId, channel: 'Lamp Seller ERP' },
      exchangeRateToBase: 1,
      reasonSummary: expect.stringMatching(/list price/),
      pricingDecisionId: expect.stringMatching(/^pd_/),
    });
    expect(claimedTasks(await claim(secondKey.key)).map((other) => other.id)).toEqual([published.get(second.connectorId)]);
  });

  it('records a sandbox approval and publishes nothing', async () => {
    const seller = await lampSeller();
    const response = await approve(seller.keys.pwTest, { sku: 'LAMP', price: 13.5 });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ sku: 'LAMP', price: 13.5, currency: 'USD', livemode: false, published_to: [] });
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  });

  it.each([
    [{ price: 15 }],
    [{ sku: 'LAMP' }],
    [{ sku: 'LAMP', price: '15.00' }],
    [{ sku: 'LAMP', price: 0 }],
    [{ sku: 'LAMP', price: -15 }],
    [{ sku: 'LAMP', price: 15.001 }],
    [{ sku: '', price: 15 }],
    [{ sku: 'LAMP', price: 15, note: 'x' }],
    ['{"sku":'],
  ])('is 400 bad_request for %j, and publishes nothing', async (body) => {
    const seller = await lampSeller();
    expectOverviewError(await approve(seller.keys.pwLive, body), 400, 'bad_request');
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  });

  it('is 422 guardrail_violation naming the bound for a price outside the floor or the ceiling, and publishes nothing', async () => {
    const seller = await lampSeller();
    expectOverviewError(
      await approve(seller.keys.pwLive, { sku: 'LAMP', price: 11.99 }),
      422,
      'guardrail_violation',
      /below the floor of 12.00 USD/,
    );
    expectOverviewError(
      await approve(seller.keys.pwLive, { sku: 'LAMP', price: 20.01 }),
      422,
      'guardrail_violation',
      /above the ceiling of 20.00 USD/,
    );
    expectOverviewError(await approve(seller.keys.pwTest, { sku: 'LAMP', price: 20.01 }), 422, 'guardrail_violation', /ceiling/);
    // 20.00 is +33.33% from 15.00, past the default 25% an approval moves the price unconfirmed.
    expect((await approve(seller.keys.pwTest, { sku: 'LAMP', price: 20, confirm: true })).status).toBe(200);
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  });

  it('is 404 not_found for an unknown sku', async () => {
    const seller = await lampSeller();
    expectOverviewError(await approve(seller.keys.pwLive, { sku: 'NO-SUCH', price: 15 }), 404, 'not_found');
  });

  it("cancels the connector's older pending task for the SKU when a newer price is approved", async () => {
    const seller = await lampSeller();
    const first = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 14 });
    const second = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 16 });
    const tasks = claimedTasks(await claim(seller.keys.connector));
    expect(tasks.map((task) => [task.id, task.priceCents])).toEqual([[second.json.published_to[0].writeback_id, 1600]]);
    const superseded = first.json.published_to[0].writeback_id;
    expect((await ack(seller.keys.connector, [{ id: superseded, ok: true }])).json).toEqual({
      applied: 0,
      failed: 0,
      expired: 0,
      ignored: 1,
    });
  });

  it('leaves a task under a live lease to finish when a newer price is approved, and holds the newer one back until then', async () => {
    const seller = await lampSeller();
    const first = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 14 });
    claimedTasks(await claim(seller.keys.connector));
    const second = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 16 });
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
    const results = [{ id: first.json.published_to[0].writeback_id, ok: true }];
    expect((await ack(seller.keys.connector, results)).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect(claimedTasks(await claim(seller.keys.connector)).map((task) => task.id)).toEqual([second.json.published_to[0].writeback_id]);
  });

  it("leaves each connector one pending task, the last approval's, after five approvals of one SKU at once", async () => {
    const seller = await lampSeller();
    const second = await createConnector({ workspaceId: seller.workspaceId, name: 'Storefront sync', receivesWritebacks: true });
    for (const sku of ['LAMP', 'SHADE']) {
      const prices = sku === 'LAMP' ? [14, 14.5, 15, 15.5, 16] : [8, 8.25, 8.5, 8.75, 9];
      const approvals = await Promise.all(prices.map((price) => approve(seller.keys.pwLive, { sku, price })));
      for (const approval of approvals) expect(approval.status, approval.text).toBe(200);

      // They took turns: each has a moment of its own, and the latest is the one that stands.
      const moments = approvals.map((approval) => approval.json.approved_at as string);
      expect(new Set(moments).size).toBe(5);
      const winner = approvals.reduce((latest, approval) => (approval.json.approved_at > latest.json.approved_at ? approval : latest));
      const winnerTasks = winner.json.published_to.map((published: { writeback_id: string }) => published.writeback_id);
      expect(winner.json.published_to.map((published: { connector_id: string }) => published.connector_id).sort()).toEqual(
        [seller.connectorId, second.connectorId].sort(),
      );
      for (const approval of approvals) {
        for (const published of approval.json.published_to) {
          const task = await storedTask(seller.workspaceId, published.writeback_id);
          expect(task?.status).toBe(approval === winner ? 'pending' : 'cancelled');
        }
      }

      // The product's approval history ends with the winner, and its latest approval names the winner's tasks.
      const { Items = [] } = await tableClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :approval)',
          ExpressionAttributeValues: { ':pk': keys.product(seller.workspaceId, sku).PK, ':approval': 'APPROVAL#' },
          ConsistentRead: true,
        }),
      );
      expect(Items.map((item) => item.approvedAt)).toEqual([...moments].sort());
      expect(Items.at(-1)?.publishedTo.map((published: { writebackId: string }) => published.writebackId)).toEqual(winnerTasks);
      const { Item: latest } = await tableClient().send(
        new GetCommand({ TableName: tableName(), Key: keys.latestApproval(seller.workspaceId, sku), ConsistentRead: true }),
      );
      expect(latest).toMatchObject({ version: 5, approvedAt: winner.json.approved_at, taskIds: winnerTasks });
    }
  });

  it("cancels only that SKU's tasks, and a sandbox approval cancels none", async () => {
    const seller = await lampSeller();
    const lamp = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 14 });
    const shade = await approve(seller.keys.pwLive, { sku: 'SHADE', price: 8 });
    await approve(seller.keys.pwTest, { sku: 'LAMP', price: 16 });
    const newer = await approve(seller.keys.pwLive, { sku: 'SHADE', price: 9 });
    const ids = claimedTasks(await claim(seller.keys.connector)).map((task) => task.id);
    expect(ids).toEqual([lamp.json.published_to[0].writeback_id, newer.json.published_to[0].writeback_id]);
    expect(ids).not.toContain(shade.json.published_to[0].writeback_id);
  });

  it('leaves a task whose lease ran out alone when approving, and cancels it rather than hand it out again once superseded', async () => {
    const seller = await lampSeller();
    const first = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 14 });
    claimedTasks(await claim(seller.keys.connector, { leaseSeconds: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 16 });
    expect(await storedTask(seller.workspaceId, first.json.published_to[0].writeback_id)).toMatchObject({ status: 'leased' });
    const ids = claimedTasks(await claim(seller.keys.connector)).map((task) => task.id);
    expect(ids).toEqual([second.json.published_to[0].writeback_id]);
    expect(await storedTask(seller.workspaceId, first.json.published_to[0].writeback_id)).toMatchObject({ status: 'cancelled' });
  });

  it('checks the price against the product as it stands, before the bands job after its drain has ended', async () => {
    const seller = await lampSeller();
    // As a drain leaves it: the product's floor raised, its recommendation not yet recomputed.
    await tableClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.product(seller.workspaceId, 'LAMP'),
        UpdateExpression: 'SET floorCents = :floor',
        ExpressionAttributeValues: { ':floor': 1400 },
      }),
    );
    expectOverviewError(await approve(seller.keys.pwLive, { sku: 'LAMP', price: 13 }), 422, 'guardrail_violation', /floor of 14.00 USD/);
    expect((await getPrice(seller.keys.pwLive, 'LAMP', '?include=rationale')).json.guardrails).toEqual({ floor: 14, ceiling: 20 });
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  });

  it('is 404 not_found for a product without a cost, and creates nothing', async () => {
    const seller = await newWorkspace('Free Seller');
    await drain(seller, { product: [{ sku: 'FREEBIE', name: 'Sample pack', category: 'Samples', costCents: 0, currentPriceCents: 0 }] });
    expectOverviewError(await approve(seller.keys.pwLive, { sku: 'FREEBIE', price: 1 }), 404, 'not_found', /cost is 0/);
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  });

  it('records a live approval but publishes nowhere in a workspace without write-backs', async () => {
    const seller = await workspaceWith({ features: ['overview', 'storefront'] });
    await drain(seller, { product: [LAMP] });
    const response = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 15 });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ livemode: true, published_to: [] });
  });
});

describe('an approved price applied by a connector', () => {
  it('becomes the current price the overview shows, and the recommendation is recomputed from it', async () => {
    const seller = await lampSeller();
    const approval = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 18.5 });
    const [task] = claimedTasks(await claim(seller.keys.connector));
    expect(task?.id).toBe(approval.json.published_to[0].writeback_id);
    expect((await ack(seller.keys.connector, [{ id: task?.id, ok: true }])).json).toEqual({
      applied: 1,
      failed: 0,
      expired: 0,
      ignored: 0,
    });
    const shown = await getPrice(seller.keys.pwLive, 'LAMP');
    // With no history the recommendation is the list price, now the applied one.
    expect(shown.json).toMatchObject({ current_price: 18.5, recommended_price: 18.5, change_pct: 0 });
    const [line] = okLines(await pricesCall(seller.keys.erp, { lines: [{ productSku: 'LAMP', quantity: 1 }] }));
    expect(line?.priceCents).toBe(1850);
  });

  it('lands the newest approved price last: the newer task waits for the older one, then applies over it', async () => {
    const seller = await lampSeller();
    const older = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 14 });
    claimedTasks(await claim(seller.keys.connector));
    const newer = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 16 });
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
    const acked = (approval: typeof older) => ack(seller.keys.connector, [{ id: approval.json.published_to[0].writeback_id, ok: true }]);
    expect((await acked(older)).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect((await getPrice(seller.keys.pwLive, 'LAMP')).json).toMatchObject({ current_price: 14 });
    claimedTasks(await claim(seller.keys.connector));
    expect((await acked(newer)).json).toEqual({ applied: 1, failed: 0, expired: 0, ignored: 0 });
    expect((await getPrice(seller.keys.pwLive, 'LAMP')).json).toMatchObject({ current_price: 16 });
  });

  it('leaves the current price alone when the connector reports a failure', async () => {
    const seller = await lampSeller();
    await approve(seller.keys.pwLive, { sku: 'LAMP', price: 18.5 });
    const [task] = claimedTasks(await claim(seller.keys.connector));
    expect((await ack(seller.keys.connector, [{ id: task?.id, ok: false, error: 'locked' }])).json).toMatchObject({ failed: 1 });
    expect((await getPrice(seller.keys.pwLive, 'LAMP')).json).toMatchObject({ current_price: 15 });
  });
});

describe('bounded input on the overview', () => {
  let seller: TestWorkspace;

  beforeAll(async () => {
    seller = await lampSeller();
  }, 60_000);

  /** The approvals recorded beside a product, read from its partition. */
  async function approvalsOf(sku: string): Promise<unknown[]> {
    const { Items } = await tableClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :approval)',
        ExpressionAttributeValues: { ':pk': keys.product(seller.workspaceId, sku).PK, ':approval': 'APPROVAL#' },
        ConsistentRead: true,
      }),
    );
    return Items ?? [];
  }

  async function expectNothingApproved(): Promise<void> {
    expect(await approvalsOf('LAMP')).toEqual([]);
    expect(claimedTasks(await claim(seller.keys.connector))).toEqual([]);
  }

  it('answers a SKU of 3,000 characters with 400 bad_request, and one of 255 characters of 4 bytes each with 404 not_found', async () => {
    expectOverviewError(await getPrice(seller.keys.pwLive, 'S'.repeat(3000)), 400, 'bad_request', /sku.*at most 255 characters/);
    expectOverviewError(await getPrice(seller.keys.pwLive, '𝄞'.repeat(255)), 404, 'not_found');
  });

  it('refuses to approve a SKU of 3,000 characters with 400 bad_request, and records nothing', async () => {
    expectOverviewError(
      await approve(seller.keys.pwLive, { sku: 'S'.repeat(3000), price: 15 }),
      400,
      'bad_request',
      /sku.*at most 255 characters/,
    );
    await expectNothingApproved();
  });

  it('refuses a price of 1e20 with 400 bad_request naming the largest price it can take, not its decimals, and records nothing', async () => {
    const response = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 1e20 });
    expectOverviewError(response, 400, 'bad_request', /^price must be at most 70,368,744,177,663\.99 USD; /);
    expect(response.json.error.message).not.toContain('decimal');
    await expectNothingApproved();
  });

  it('refuses a body nested a million levels deep with 400 bad_request before reading it, and records nothing', async () => {
    const body = `{"sku":"LAMP","price":15,"note":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    expectOverviewError(await approve(seller.keys.pwLive, body), 400, 'bad_request', /nests objects and arrays more than 64 levels deep/);
    await expectNothingApproved();
  });
});
