// The webhook outbox: events written in the transaction of the state change they report, handed to the queue after commit, and swept up if that hand-off never happened.
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { hasWebhooksQueue } from '#platform/config.ts';
import { logger } from '#platform/observability.ts';
import {
  cancellationCodes,
  getItem,
  onTable,
  queryPage,
  transactWrite,
  type TransactEntry,
  type TransactItem,
  updateItem,
} from '#platform/table/commands.ts';
import { table } from '#platform/table/definition.ts';
import { keys } from '#platform/table/keys.ts';
import { lookupKeys, OUTBOX_SHARDS } from '#platform/table/index-keys.ts';
import { WebhookEventSchema, type WebhookEvent } from './events.ts';
import { sendWebhookMessages } from './queue.ts';

/** Events stay readable for redelivery as long as their attempts are logged. */
export const EVENT_RETENTION_DAYS = 30;
/**
 * An event still undispatched this long after its commit lost its hand-off (the process stopped between the commit
 * and the send, or the send failed): the sweeper sends it. Shorter would race hand-offs still in flight.
 */
export const SWEEP_AFTER_MS = 30_000;

const [lookupIndex] = table.indexes;

const StoredEventSchema = v.object({ event: WebhookEventSchema, dispatchedAt: v.optional(v.string()) });
export type StoredEvent = v.InferOutput<typeof StoredEventSchema>;

/** The outbox item of one event, to be put in the same transaction as the state change it reports. */
export function outboxEntry(event: WebhookEvent): TransactEntry {
  return {
    Put: {
      Item: {
        ...keys.webhookEvent(event.workspaceId, event.id),
        type: 'webhookEvent',
        event,
        ...lookupKeys.undispatchedEvent(event.id, event.timestamp, event.workspaceId),
        expiresAt: Math.floor(Date.parse(event.timestamp) / 1000) + EVENT_RETENTION_DAYS * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** The outbox entry as a transaction item, for a transaction sent whole. */
export function outboxPut(event: WebhookEvent): TransactItem {
  return onTable(outboxEntry(event));
}

/** A condition of the state change refused it: thrown under the name a single write's refusal has, so callers keep their checks. */
class ConditionRefused extends Error {
  constructor() {
    super('The conditional request failed');
    this.name = 'ConditionalCheckFailedException';
  }
}

/** An update of the table; a caller that still names the table names this one. */
type TableUpdate = Omit<UpdateCommandInput, 'TableName'> & { readonly TableName?: string };

/**
 * One UpdateItem and the events it reports, all or nothing: a refused or failed update records no event. A refusal of
 * the update's own condition is thrown as a single UpdateItem's would be. The events are then handed on. `riders` are
 * unconditional writes that belong to the same change and commit with it.
 */
export async function updateWithEvents(
  update: TableUpdate,
  events: readonly WebhookEvent[],
  riders: readonly TransactEntry[] = [],
): Promise<void> {
  const { TableName: _tableName, ...onThisTable } = update;
  if (events.length === 0 && riders.length === 0) {
    const updated = await updateItem(onThisTable);
    if (updated.refused) throw updated.error;
    return;
  }
  const { ReturnValues: _returnValues, ...item } = onThisTable;
  try {
    await transactWrite([{ Update: item as NonNullable<TransactEntry['Update']> }, ...events.map(outboxEntry), ...riders]);
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') throw new ConditionRefused();
    throw error;
  }
  await handOn(events);
}

/**
 * Hands committed events to the delivery queue. A failure here loses nothing: the events are in the table, and the
 * sweeper sends what is still undispatched. So it is logged, never thrown at a caller whose change did commit.
 */
export async function handOn(events: readonly WebhookEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (!hasWebhooksQueue()) return;
  try {
    await sendWebhookMessages(events.map((event) => ({ kind: 'fanOut', workspaceId: event.workspaceId, eventId: event.id })));
  } catch (error) {
    logger.warn('webhook events left to the sweeper', { events: events.length, error: error as Error });
  }
}

export async function readEvent(workspaceId: string, eventId: string): Promise<StoredEvent | undefined> {
  const Item = await getItem({ Key: keys.webhookEvent(workspaceId, eventId), ConsistentRead: true });
  return Item ? v.parse(StoredEventSchema, Item) : undefined;
}

/** Takes the event off the sweeper's list, once its attempts are queued for every endpoint subscribed to it. */
export async function markDispatched(event: WebhookEvent, endpointIds: readonly string[], nowMs: number): Promise<void> {
  // Refused when the event expired meanwhile: nothing is left to mark.
  await updateItem({
    Key: keys.webhookEvent(event.workspaceId, event.id),
    UpdateExpression: 'SET dispatchedAt = :now, endpointIds = :endpoints REMOVE #lookupPk, #lookupSk',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeNames: { '#lookupPk': lookupIndex.partitionKey, '#lookupSk': lookupIndex.sortKey },
    ExpressionAttributeValues: { ':now': new Date(nowMs).toISOString(), ':endpoints': [...endpointIds] },
  });
}

/** Events per shard sent per sweep; a backlog larger than that is worked off over the next sweeps. */
const SWEEP_PAGE = 100;

export interface SweepOutcome {
  readonly sent: number;
  /** The events sent, by their workspace: the sweep's cost is charged to these. */
  readonly perWorkspace: ReadonlyMap<string, number>;
}

/** Sends every event whose hand-off was lost to the delivery queue; says how many it sent, and whose. */
export async function sweepOutbox(nowMs: number): Promise<SweepOutcome> {
  const cutoff = new Date(nowMs - SWEEP_AFTER_MS).toISOString();
  const perWorkspace = new Map<string, number>();
  let sent = 0;
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    const { Items = [] } = await queryPage({
      IndexName: lookupIndex.name,
      KeyConditionExpression: '#pk = :pk AND #sk < :cutoff',
      ExpressionAttributeNames: { '#pk': lookupIndex.partitionKey, '#sk': lookupIndex.sortKey },
      ExpressionAttributeValues: { ':pk': lookupKeys.undispatchedEvents(shard).partitionKey, ':cutoff': cutoff },
      Limit: SWEEP_PAGE,
    });
    const messages = Items.map((item) => ({ kind: 'fanOut' as const, ...lookupKeys.undispatchedEventOf(item[lookupIndex.sortKey]) }));
    if (messages.length > 0) await sendWebhookMessages(messages);
    for (const message of messages) perWorkspace.set(message.workspaceId, (perWorkspace.get(message.workspaceId) ?? 0) + 1);
    sent += messages.length;
  }
  if (sent > 0) logger.warn('webhook events swept up', { events: sent });
  return { sent, perWorkspace };
}
