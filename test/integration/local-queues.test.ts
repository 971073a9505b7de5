// Local mode's queues from the shared definitions: each keeps a message as long as the stack's does.
import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createQueue, localSqsClient } from '#lib/local/queues.ts';
import { queues } from '#platform/queues.ts';

const sqs = localSqsClient(inject('stack').sqsEndpoint);
afterAll(() => sqs.destroy());

async function retentionSeconds(url: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['MessageRetentionPeriod'] }));
  return Number(Attributes?.MessageRetentionPeriod);
}

describe('local queues', () => {
  it('keep a message 14 days in each work queue and its dead-letter queue, as the stack’s do', async () => {
    for (const definition of Object.values(queues)) {
      const queue = await createQueue(sqs, `retention-${definition.id}-${randomUUID()}`, definition);
      expect(await retentionSeconds(queue.url), definition.id).toBe(definition.retentionDays * 86_400);
      expect(await retentionSeconds(queue.deadLetterUrl), definition.id).toBe(definition.deadLetterRetentionDays * 86_400);
      expect(definition.retentionDays * 86_400).toBe(1_209_600);
    }
  });
});
