// The SQS queues of the service and their redrive rules, read by the CDK stack and by local mode alike.

export interface QueueDefinition {
  readonly id: QueueId;
  /** The longest a consumer of this queue may run; Lambda's own timeout for the worker is set from it. */
  readonly consumerTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** How long the dead-letter queue keeps a message for someone to inspect it. */
  readonly deadLetterRetentionDays: number;
}

export type QueueId = 'drain' | 'webhooks';

/**
 * AWS advises a visibility timeout of at least six times the consumer's timeout, so that a message is not
 * handed to a second consumer while Lambda is still retrying a throttled first one.
 */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

export const queues: Readonly<Record<QueueId, QueueDefinition>> = {
  drain: { id: 'drain', consumerTimeoutSeconds: 120, maxReceiveCount: 5, deadLetterRetentionDays: 14 },
  // Webhook fan-out and delivery attempts. Each attempt waits at most 10 s for its receiver, and a batch's attempts run
  // side by side; a message that fails 5 receives (a fault of the worker, never of a receiver) is parked.
  webhooks: { id: 'webhooks', consumerTimeoutSeconds: 60, maxReceiveCount: 5, deadLetterRetentionDays: 14 },
};

export function visibilityTimeoutSeconds(queue: QueueDefinition): number {
  return queue.consumerTimeoutSeconds * VISIBILITY_TO_TIMEOUT_RATIO;
}
