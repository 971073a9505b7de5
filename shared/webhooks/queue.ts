// Messages on the webhooks queue: an event to fan out to its endpoints, and one delivery attempt of an event to one endpoint.
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { webhooksQueueUrl } from '#platform/config.ts';
import { queueClient } from '#platform/queue-client.ts';
import { currentLedger } from '#platform/meter.ts';

const positive = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

export const FanOutMessageSchema = v.object({
  kind: v.literal('fanOut'),
  workspaceId: v.string(),
  eventId: v.string(),
  /** Set once the fan-out has its place on its workspace's line (fair-share.ts): epoch ms before which it waits. */
  notBefore: v.optional(v.number()),
});

export const AttemptMessageSchema = v.object({
  kind: v.literal('attempt'),
  workspaceId: v.string(),
  eventId: v.string(),
  endpointId: v.string(),
  /** The attempt's number over the delivery's whole life, redeliveries included: the attempt log's key. */
  seq: positive,
  /** The attempt's place in its run of retries (a redelivery starts a new run): which wait of the schedule follows it. */
  tryInRun: positive,
  /**
   * Epoch ms before which the attempt must not run. SQS delays a message 15 minutes at most: a longer wait is a chain
   * of delayed sends, each receiving worker sending it on until this moment.
   */
  notBefore: v.optional(v.number()),
  /** How often this attempt was deferred (breaker open, bounds full) without being made: each deferral waits longer. */
  deferrals: v.optional(positive),
});

export const WebhookMessageSchema = v.variant('kind', [FanOutMessageSchema, AttemptMessageSchema]);
export type FanOutMessage = v.InferOutput<typeof FanOutMessageSchema>;
export type AttemptMessage = v.InferOutput<typeof AttemptMessageSchema>;
export type WebhookMessage = v.InferOutput<typeof WebhookMessageSchema>;

/** SQS's own ceiling on DelaySeconds. */
export const MAX_DELAY_SECONDS = 900;

/** A message and how long SQS holds it before any worker sees it. */
export interface Delayed {
  readonly message: WebhookMessage;
  readonly delaySeconds: number;
}

/** Sends messages ten to a call (SendMessageBatch's limit), all after the same delay; a message refused fails the whole send. */
export function sendWebhookMessages(messages: readonly WebhookMessage[], delaySeconds = 0): Promise<void> {
  return sendDelayed(messages.map((message) => ({ message, delaySeconds })));
}

/**
 * Sends messages ten to a call, each after its own delay. Each carries its workspace as its MessageGroupId: on a
 * standard queue that makes it a fair queue, where SQS itself serves a quiet workspace's messages ahead of a noisy
 * one's backlog (docs/webhooks.md, "A fair share per workspace"); the order within a workspace stays unpromised.
 */
export async function sendDelayed(entries: readonly Delayed[]): Promise<void> {
  for (let start = 0; start < entries.length; start += 10) {
    const slice = entries.slice(start, start + 10);
    const { Failed } = await queueClient().send(
      new SendMessageBatchCommand({
        QueueUrl: webhooksQueueUrl(),
        Entries: slice.map(({ message, delaySeconds }, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(message),
          MessageGroupId: message.workspaceId,
          DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.floor(delaySeconds))),
        })),
      }),
    );
    // Ten messages of a few hundred bytes are one SQS request, far under the 64 KB a request is billed by.
    const ledger = currentLedger();
    if (ledger) ledger.queueRequests += 1;
    if (Failed?.length) throw new Error(`the webhooks queue refused ${Failed.length} messages: ${Failed[0]?.Message ?? Failed[0]?.Code}`);
  }
}
