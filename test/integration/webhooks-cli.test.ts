// What a connector author does with webhooks on the local stack: subscribe a receiver with the admin CLI, drain a batch, approve a price, read the deliveries, redeliver.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import type { ProductRecord } from '#shared/records/schema.ts';
import { drain } from './prices-support.ts';
import { newWorkspace } from './support.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { approve } from './writebacks-support.ts';

const run = promisify(execFile);

async function admin(...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['bin/admin.ts', ...args, '--json', '--stack', inject('stackFile')], { cwd: projectRoot });
  return JSON.parse(stdout);
}

const LAMP: ProductRecord = {
  sku: 'LAMP',
  name: 'Desk lamp',
  category: 'Lighting',
  costCents: 1000,
  currentPriceCents: 1500,
  floorCents: 1200,
  ceilingCents: 2000,
};

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
});

describe('webhooks from the admin CLI', () => {
  it('subscribes a local receiver, which gets verified batch.drained, price.approved and writeback.pending events, and redelivers one', async () => {
    const seller = await newWorkspace('Webhook CLI Seller');
    const local = await startReceiver();
    receiver = local;
    const created = (await admin(
      'webhook',
      'create',
      '--workspace',
      seller.workspaceId,
      '--url',
      local.url,
      '--events',
      'batch.drained,price.approved,writeback.pending',
    )) as { id: string; secret: string };
    local.verifyWith(created.secret);

    await drain(seller, { product: [LAMP] });
    const approved = await approve(seller.keys.pwLive, { sku: 'LAMP', price: 16 });
    expect(approved.status, approved.text).toBe(200);

    const wanted = ['batch.drained', 'price.approved', 'writeback.pending'];
    await local.waitFor(() => wanted.every((type) => local.events().some((event) => event.type === type)));
    expect(local.requests.filter((request) => request.verifyError)).toEqual([]);
    // One approval records price.approved and writeback.pending together; their deliveries race, in either order.
    expect(
      local
        .events()
        .map((event) => event.type)
        .sort(),
    ).toEqual(wanted);
    const pending = local.events().find((event) => event.type === 'writeback.pending');
    expect(pending?.data).toMatchObject({ connectorId: seller.connectorId, productSku: 'LAMP', priceCents: 1600 });

    const deliveries = (await admin('webhook', 'deliveries', created.id, '--workspace', seller.workspaceId)) as Array<{
      eventId: string;
      eventType: string;
      status: string;
    }>;
    expect(deliveries.map((delivery) => delivery.eventType).sort()).toEqual([...wanted].sort());
    const approval = deliveries.find((delivery) => delivery.eventType === 'price.approved');
    const attempts = (await admin(
      'webhook',
      'deliveries',
      created.id,
      '--workspace',
      seller.workspaceId,
      '--event',
      approval?.eventId ?? '',
    )) as Array<{
      seq: number;
      status: number;
      response: string;
    }>;
    expect(attempts).toMatchObject([{ seq: 1, status: 200, response: 'ok' }]);

    const before = local.requests.length;
    await admin('webhook', 'redeliver', created.id, '--workspace', seller.workspaceId, '--event', approval?.eventId ?? '');
    await local.waitFor((requests) => requests.length > before);
    expect(local.requests[before]?.webhookId).toBe(approval?.eventId);
    expect(local.requests[before]?.event?.type).toBe('price.approved');
  }, 60_000);
});
