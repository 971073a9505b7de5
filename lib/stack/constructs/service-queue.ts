// One SQS queue of the service with its dead-letter queue, built from its shared queue definition.
import { Duration } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDefinition, visibilityTimeoutSeconds } from '#platform/queues.ts';

export interface ServiceQueueProps {
  readonly definition: QueueDefinition;
  /** A customer-managed key for both queues; without one, SQS-managed keys. */
  readonly encryptionKey?: IKey;
}

export class ServiceQueue extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ServiceQueueProps) {
    super(scope, id);
    const { definition } = props;
    const encryption = props.encryptionKey
      ? { encryption: QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey }
      : { encryption: QueueEncryption.SQS_MANAGED };

    // SQS-managed keys encrypt at rest without a KMS key to pay for and to grant to every producer and consumer.
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      retentionPeriod: Duration.days(definition.deadLetterRetentionDays),
      ...encryption,
      enforceSSL: true,
    });

    this.queue = new Queue(this, 'Queue', {
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(definition)),
      retentionPeriod: Duration.days(definition.retentionDays),
      ...encryption,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
    });
  }
}
