// The glue every queue worker and scheduled job shares, as endpoint.ts is the routes': each message in its own log scope and meter unit, a failure reported once and answered as a failed message, and the work charged to the workspaces it served.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { reportWorkerFailure, withLogKeys } from '#platform/observability.ts';
import { metered, type MeteredFunction, type MeteredUnit, sharesByItems, sideBySideShares, workspaceShare } from './metering.ts';

/** What a queue worker does with one message, in three steps so that its cost is charged even when its work fails. */
export interface QueueJob<Message> {
  /** The message's body read; a message nothing of the service could have sent throws, and ends in the dead-letter queue. */
  readonly read: (record: SQSRecord) => Message;
  /**
   * The workspace the message's work is charged to, and, for a worker taking its messages one at a time, the route it
   * is counted under when not the worker's own (the drain counts a bands job apart).
   */
  readonly chargedTo: (message: Message) => { readonly workspaceId: string; readonly route?: string };
  readonly run: (message: Message, record: SQSRecord, context: Context) => Promise<void>;
}

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * How a worker takes its messages: one at a time, each its own metered invocation charged whole to its workspace (a
 * long job per message), or side by side, one invocation whose time its messages share (each mostly waits on another
 * service, and a slow one must not hold the others back).
 */
export type MessageOrder = 'oneAtATime' | 'sideBySide';

/** A queue worker's handler: each message read, charged and run by `job`, failed messages answered for redelivery. */
export function queueWorker<Message>(fn: MeteredFunction, job: QueueJob<Message>, order: MessageOrder): QueueHandler {
  const processor = new BatchProcessor(EventType.SQS);
  const options = (context: Context) => ({ context, throwOnFullBatchFailure: false, processInParallel: order === 'sideBySide' });
  if (order === 'oneAtATime') {
    return (event, context) =>
      processPartialResponse(
        event,
        (record: SQSRecord) => reported(fn, record, () => meteredAlone(fn, job, record, context)),
        processor,
        options(context),
      );
  }
  return (event, context) =>
    metered(
      fn,
      (measure) => {
        const each = (record: SQSRecord) => reported(fn, record, () => measure((unit) => runMessage(job, record, context, unit)));
        return processPartialResponse(event, each, processor, options(context));
      },
      (units, invocationMs) => sideBySideShares(fn.id, units, event.Records.length, invocationMs),
    );
}

/**
 * Each message is its own unit of work: its lines carry its message id (and whatever its job adds once the body is
 * read); a failure is reported once, in that scope, then answered as a failed message.
 */
function reported(fn: MeteredFunction, record: SQSRecord, work: () => Promise<void>): Promise<void> {
  return withLogKeys({ messageId: record.messageId }, async () => {
    try {
      await work();
    } catch (error) {
      reportWorkerFailure(fn.id, error);
      throw error;
    }
  });
}

/**
 * One message as an invocation of its own, charged whole to its workspace: the receive and the delete of its message
 * are two SQS requests beside the sends its job made.
 */
async function meteredAlone<Message>(fn: MeteredFunction, job: QueueJob<Message>, record: SQSRecord, context: Context): Promise<void> {
  let route = fn.id;
  await metered(
    fn,
    (measure) => measure((unit) => runMessage(job, record, context, unit, (named) => (route = named ?? fn.id))),
    ([unit]) => {
      if (unit?.workspaceId) unit.ledger.queueRequests += 2;
      return workspaceShare(unit, { route, nowMs: Date.now(), apiRequests: 0 });
    },
  );
}

/** Reads a message, names its workspace on its unit as soon as it is known, then runs its job. */
async function runMessage<Message>(
  job: QueueJob<Message>,
  record: SQSRecord,
  context: Context,
  unit: MeteredUnit,
  counted?: (route: string | undefined) => void,
): Promise<void> {
  const message = job.read(record);
  const charged = job.chargedTo(message);
  unit.workspaceId = charged.workspaceId;
  counted?.(charged.route);
  await job.run(message, record, context);
}

/** Says what a scheduled job's run is charged: the items it did for each workspace, and how many in all. */
export type ChargeByItems = (itemsPerWorkspace: ReadonlyMap<string, number>, items: number) => void;

/**
 * A scheduled job as one unit of work, charged to the workspaces it did items for, each its share by their number,
 * from the moment it says so (`charge`): what it did is charged even if a later step fails. A run that did nothing
 * is the service's own overhead, charged to nobody.
 */
export function scheduledJob<Result>(fn: MeteredFunction, run: (charge: ChargeByItems) => Promise<Result>): Promise<Result> {
  let charged: { itemsPerWorkspace: ReadonlyMap<string, number>; items: number } | undefined;
  return metered(
    fn,
    (measure) => measure(() => run((itemsPerWorkspace, items) => (charged = { itemsPerWorkspace, items }))),
    ([unit]) => (charged && unit ? sharesByItems(fn.id, unit, charged.itemsPerWorkspace, charged.items) : []),
  );
}
