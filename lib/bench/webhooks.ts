// Webhook delivery on a local stack of its own: events delivered per second to a loopback receiver, and what an event adds to the state change it reports.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenToRequestCosts, logger, type RequestCost } from '#platform/observability.ts';
import { queueClient } from '#platform/queue-client.ts';
import { workers } from '#edge/routes.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { updateItem } from '#platform/table/commands.ts';
import { newEvent } from '#shared/webhooks/events.ts';
import { updateWithEvents } from '#shared/webhooks/outbox.ts';
import { createEndpoint } from '#shared/webhooks/endpoints.ts';
import type { AnyHandler } from '#lib/local/handlers.ts';
import { loadHandler } from '#lib/local/handlers.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';
import { startLocalStack } from '#lib/local/stack.ts';
import { costAtListPrices, gbSecondsOf, listPrices } from '#shared/cost/list-prices.ts';

export interface WebhookFigures {
  readonly events: number;
  /** How long the state changes themselves took, 16 at a time: delivery overlaps them. */
  readonly emitSeconds: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  /** What recording the event adds to one state change (a single UpdateItem turned into a transaction with the outbox item). */
  readonly emitWriteUnits: number;
  /** Per event and endpoint: fan-out, one successful attempt and its log. */
  readonly deliveryReadUnits: number;
  readonly deliveryWriteUnits: number;
  readonly invocationsPerEvent: number;
  /** Invocation wall time per event, as Lambda bills it; locally it is mostly DynamoDB Local's latency. */
  readonly lambdaMsPerEvent: number;
  readonly sqsRequestsPerEvent: number;
  /** Dollars per million events, at list prices, DynamoDB, Lambda and SQS together. */
  readonly costPerMillionEvents: { readonly dynamoDb: number; readonly lambda: number; readonly sqs: number; readonly total: number };
}

const deliverWorker = workers.find((worker) => worker.id === 'deliverWebhooks');

/** A receiver that answers 200 at once and counts what it got. */
async function startCountingReceiver(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The ledger charges a transaction by its items' sizes and leaves out the index entries they write: the outbox item's
 * entry in the sweeper's index is one more unit, added here.
 */
const OUTBOX_INDEX_ENTRY_UNITS = 1;

/** State changes made at once, as many requests of a workspace would make them. */
const EMITTERS = 16;

/**
 * Units one state change costs under a ledger: a small UpdateItem of an item of its own, with or without the event
 * that reports it. The changes run `EMITTERS` at a time; with events, they are handed on as the emission points do.
 */
async function stateChangeUnits(workspaceId: string, withEvent: boolean, changes: number): Promise<number> {
  const ledger = new CapacityLedger();
  let next = 0;
  await withCapacityLedger(ledger, () =>
    Promise.all(
      Array.from({ length: EMITTERS }, async () => {
        for (let change = next++; change < changes; change = next++) {
          const key = { PK: `WS#${workspaceId}#BENCH`, SK: `ITEM#${randomUUID()}` };
          const update = {
            Key: key,
            UpdateExpression: 'SET #counter = :one',
            ExpressionAttributeNames: { '#counter': 'counter' },
            ExpressionAttributeValues: { ':one': 1 },
          };
          if (!withEvent) {
            await updateItem(update);
            continue;
          }
          const event = newEvent(
            'batch.committed',
            workspaceId,
            {
              batchId: randomUUID(),
              connectorId: 'con_bench',
              jobId: `job_${change}`,
              recordCount: 1000,
              committedAt: new Date().toISOString(),
            },
            new Date(),
          );
          await updateWithEvents(update, [event]);
        }
      }),
    ),
  );
  return ledger.writeUnits / changes;
}

/** What one metered run counted: the delivery worker's costs and invocations, the queue sends, and the state changes' units. */
interface WebhookRun {
  readonly events: number;
  readonly costs: readonly RequestCost[];
  readonly invocations: number;
  readonly invocationMs: number;
  readonly sends: number;
  readonly plainUnits: number;
  readonly withEventUnits: number;
  readonly emitSeconds: number;
  readonly seconds: number;
}

/** A run's figures per event, and what a million events cost at list prices. */
function webhookFigures({
  events,
  costs,
  invocations,
  invocationMs,
  sends,
  plainUnits,
  withEventUnits,
  emitSeconds,
  seconds,
}: WebhookRun): WebhookFigures {
  const readUnits = costs.reduce((sum, cost) => sum + cost.ledger.readUnits, 0) / events;
  const writeUnits = costs.reduce((sum, cost) => sum + cost.ledger.writeUnits, 0) / events;
  const lambdaMs = invocationMs / events;
  // Lambda's event source makes one ReceiveMessage and one DeleteMessageBatch per batch it hands over.
  const sqsRequests = sends / events + (2 * invocations) / events;
  const emitWriteUnits = withEventUnits - plainUnits + OUTBOX_INDEX_ENTRY_UNITS;
  const perMillion = 1e6;
  const dynamo = costAtListPrices({
    readUnits: readUnits * perMillion,
    writeUnits: (emitWriteUnits + writeUnits) * perMillion,
    gbSeconds: 0,
    invocations: 0,
    meteredRequests: 0,
  });
  const lambda = costAtListPrices({
    readUnits: 0,
    writeUnits: 0,
    gbSeconds: gbSecondsOf(lambdaMs, deliverWorker?.memoryMb ?? 512) * perMillion,
    invocations: (invocations / events) * perMillion,
    meteredRequests: 0,
  });
  const sqs = sqsRequests * listPrices.sqsRequestPerMillion;
  return {
    events,
    emitSeconds,
    seconds,
    eventsPerSecond: events / seconds,
    emitWriteUnits,
    deliveryReadUnits: readUnits,
    deliveryWriteUnits: writeUnits,
    invocationsPerEvent: invocations / events,
    lambdaMsPerEvent: lambdaMs,
    sqsRequestsPerEvent: sqsRequests,
    costPerMillionEvents: {
      dynamoDb: dynamo.total,
      lambda: lambda.total,
      sqs,
      total: dynamo.total + lambda.total + sqs,
    },
  };
}

/** Waits for every event to arrive (two minutes at most), then for its fan-out and attempt to report; answers the seconds from `started` to the last arrival. */
async function deliveries(
  receiver: { received(): number },
  costs: readonly RequestCost[],
  events: number,
  started: number,
): Promise<number> {
  while (receiver.received() < events) {
    if (performance.now() - started > 120_000) throw new Error(`only ${receiver.received()} of ${events} events arrived`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  // The last attempts log after their receiver answered: wait for each event's fan-out and attempt to report.
  const settleBy = performance.now() + 30_000;
  while (costs.filter((cost) => cost.status === 200).length < 2 * events && performance.now() < settleBy) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return seconds;
}

/** Counts the queue client's sends from now on: the SQS requests the path makes besides those of Lambda's event source. */
function countQueueSends(): { count: number } {
  const counter = { count: 0 };
  queueClient().middlewareStack.add(
    (next) => async (args) => {
      counter.count += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchSendCounter' },
  );
  return counter;
}

/** Sends events through the whole path (outbox, fan-out, signed attempt, log) to one loopback endpoint, and meters it. */
export async function measureWebhooks(options: { events: number }): Promise<WebhookFigures> {
  let invocations = 0;
  let invocationMs = 0;
  const deliver = await loadHandler(deliverWorker?.entry ?? 'functions/workers/deliver-webhooks.ts');
  // Lambda bills each invocation's wall time, in which a batch's attempts run side by side.
  const counted: AnyHandler = async (event, context) => {
    invocations += 1;
    const started = performance.now();
    try {
      return await deliver(event, context);
    } finally {
      invocationMs += performance.now() - started;
    }
  };
  const stack = await startLocalStack({ port: 0, webhooks: { allowLoopbackHttp: true }, workerHandlers: { deliverWebhooks: counted } });
  const receiver = await startCountingReceiver();
  const sends = countQueueSends();
  try {
    const seller = await createWorkspaceWithKeys('Bench webhooks');
    await createEndpoint(
      seller.workspaceId,
      { url: receiver.url, eventTypes: ['batch.committed'] },
      { allowLoopbackHttp: true },
      Date.now(),
    );
    const plainUnits = await stateChangeUnits(seller.workspaceId, false, 20);
    invocations = 0;
    invocationMs = 0;
    sends.count = 0;
    const costs: RequestCost[] = [];
    const stop = listenToRequestCosts((cost) => {
      if (cost.route === 'deliverWebhooks') costs.push(cost);
    });
    const started = performance.now();
    const withEventUnits = await stateChangeUnits(seller.workspaceId, true, options.events);
    const emitSeconds = (performance.now() - started) / 1000;
    const seconds = await deliveries(receiver, costs, options.events, started);
    stop();
    return webhookFigures({
      events: options.events,
      costs,
      invocations,
      invocationMs,
      sends: sends.count,
      plainUnits,
      withEventUnits,
      emitSeconds,
      seconds,
    });
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

export function printWebhookFigures(figures: WebhookFigures): void {
  const cost = figures.costPerMillionEvents;
  console.log(
    `  delivered               ${Math.round(figures.eventsPerSecond).toLocaleString('en-US')} events/s (${figures.events.toLocaleString('en-US')} events, first state change to last 2xx, in ${figures.seconds.toFixed(1)} s, the changes themselves ${figures.emitSeconds.toFixed(1)} s, ${EMITTERS} at a time; one endpoint)`,
  );
  console.log(
    `  added per state change  ${figures.emitWriteUnits.toFixed(2)} WRU to record the event with it (outbox item and its index entry, the change made transactional)`,
  );
  console.log(
    `  delivery per event      ${figures.deliveryReadUnits.toFixed(2)} RRU, ${figures.deliveryWriteUnits.toFixed(2)} WRU (fan-out, one attempt and its log); ${figures.invocationsPerEvent.toFixed(2)} invocations, ${figures.lambdaMsPerEvent.toFixed(1)} ms billed (DynamoDB Local's latency on this machine, mostly); ${figures.sqsRequestsPerEvent.toFixed(2)} SQS requests`,
  );
  console.log(
    `  cost per 1M events      $${cost.total.toFixed(2)}: DynamoDB $${cost.dynamoDb.toFixed(2)}, Lambda $${cost.lambda.toFixed(2)}, SQS $${cost.sqs.toFixed(2)} (one endpoint; each more endpoint adds the attempt, not the outbox)`,
  );
}

if (import.meta.main) {
  logger.setLogLevel('WARN');
  const events = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 200);
  console.log(`Webhook delivery on the local stack (${events} events to one loopback endpoint)`);
  const figures = await measureWebhooks({ events });
  printWebhookFigures(figures);
  console.log(JSON.stringify(figures));
}
