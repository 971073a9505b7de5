// The SQS emulator for local mode: starts fauxqs in-process and creates the queues and their redrive from the shared definitions.
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { type QueueDefinition, type QueueId, visibilityTimeoutSeconds } from '#platform/queues.ts';
import { localCredentials } from './dynamodb.ts';
import { LOCAL_REGION } from './lambda-context.ts';

export interface SqsEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

export async function startSqsEmulator(options: { port?: number; dataDir?: string } = {}): Promise<SqsEmulator> {
  const server = await startFauxqs({
    port: options.port ?? 0,
    host: 'localhost',
    logger: false,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: localCredentials });
}

export interface LocalQueue {
  readonly url: string;
  readonly arn: string;
  readonly deadLetterUrl: string;
  readonly deadLetterArn: string;
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${url} has no ARN`);
  return arn;
}

/**
 * Creates a queue and its dead-letter queue as the stack does. `visibilityTimeoutSeconds` may be shortened for tests
 * that wait for a redelivery; everything else follows the definition.
 */
export async function createQueue(
  sqs: SQSClient,
  name: string,
  definition: QueueDefinition,
  overrides: { visibilityTimeoutSeconds?: number } = {},
): Promise<LocalQueue> {
  const dead = await sqs.send(
    new CreateQueueCommand({
      QueueName: `${name}-dlq`,
      Attributes: { MessageRetentionPeriod: String(definition.deadLetterRetentionDays * 86_400) },
    }),
  );
  const deadLetterUrl = dead.QueueUrl as string;
  const deadLetterArn = await queueArn(sqs, deadLetterUrl);
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(overrides.visibilityTimeoutSeconds ?? visibilityTimeoutSeconds(definition)),
        MessageRetentionPeriod: String(definition.retentionDays * 86_400),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: String(definition.maxReceiveCount) }),
      },
    }),
  );
  const url = created.QueueUrl as string;
  return { url, arn: await queueArn(sqs, url), deadLetterUrl, deadLetterArn };
}

export async function createQueues(
  sqs: SQSClient,
  definitions: Readonly<Record<QueueId, QueueDefinition>>,
  prefix: string,
  overrides: { visibilityTimeoutSeconds?: number } = {},
): Promise<Record<QueueId, LocalQueue>> {
  const entries = await Promise.all(
    Object.values(definitions).map(
      async (definition) => [definition.id, await createQueue(sqs, `${prefix}-${definition.id}`, definition, overrides)] as const,
    ),
  );
  return Object.fromEntries(entries) as Record<QueueId, LocalQueue>;
}
