// The SQS queues of the service and their redrive rules, read by the CDK stack and by local mode alike.

export interface QueueDefinition {
  readonly id: QueueId;
  /** The longest a consumer of this queue may run; Lambda's own timeout for the worker is set from it. */
  readonly consumerTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  readonly maxReceiveCount: number;
  /** How long the dead-letter queue keeps a message for someone to inspect it. */
  readonly deadLetterRetentionDays: number;
  /**
   * How long the queue itself keeps a message not yet consumed: past it SQS drops the message unseen, so it must
   * outlast the longest outage anyone would sit out (SQS's own default is 4 days).
   */
  readonly retentionDays: number;
}

export type QueueId = 'drain' | 'webhooks';

/** SQS's longest retention: a queued drain or delivery survives a two-week outage of its worker. */
export const WORK_QUEUE_RETENTION_DAYS = 14;

/**
 * AWS advises a visibility timeout of at least six times the consumer's timeout, so that a message is not
 * handed to a second consumer while Lambda is still retrying a throttled first one.
 */
export const VISIBILITY_TO_TIMEOUT_RATIO = 6;

export const queues: Readonly<Record<QueueId, QueueDefinition>> = {
  drain: {
    id: 'drain',
    consumerTimeoutSeconds: 120,
    maxReceiveCount: 5,
    deadLetterRetentionDays: 14,
    retentionDays: WORK_QUEUE_RETENTION_DAYS,
  },
  // Webhook fan-out and delivery attempts. Each attempt waits at most 10 s for its receiver, and a batch's attempts run
  // side by side; a message that fails 5 receives (a fault of the worker, never of a receiver) is parked.
  webhooks: {
    id: 'webhooks',
    consumerTimeoutSeconds: 60,
    maxReceiveCount: 5,
    deadLetterRetentionDays: 14,
    retentionDays: WORK_QUEUE_RETENTION_DAYS,
  },
};

export function visibilityTimeoutSeconds(queue: QueueDefinition): number {
  return queue.consumerTimeoutSeconds * VISIBILITY_TO_TIMEOUT_RATIO;
}
