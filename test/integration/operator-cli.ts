// The admin CLI run as an operator runs it in the runbooks, against the test run's local stack, with what it read on stdin.
import { spawn } from 'node:child_process';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { expect, inject } from 'vitest';
import { environmentNames } from '#platform/config.ts';
import { queueClient } from '#platform/queue-client.ts';
import { projectRoot } from '#lib/stack/project.ts';

export interface AdminRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the CLI against the test run's local stack (or the stack file given, which describes another table of it); with
 * --aws, against what the command line names instead.
 */
export function admin(args: readonly string[], input = '', stackFile: string = inject('stackFile')): Promise<AdminRun> {
  const target = args.includes('--aws') ? [] : ['--stack', stackFile];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/admin.ts', ...args, ...target], { cwd: projectRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Exactly one JSON document on stdout with exit 0, or the test fails. */
export async function adminJson(args: readonly string[], input = '') {
  const result = await admin([...args, '--json'], input);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** Parks a message in a queue's dead-letter queue as a worker does, with the reason if given; answers its message id. */
export async function parkMessage(queue: 'drain' | 'webhooks', body: unknown, reason?: string): Promise<string> {
  const url = process.env[queue === 'drain' ? environmentNames.drainDeadLetterQueueUrl : environmentNames.webhooksDeadLetterQueueUrl];
  const { MessageId } = await queueClient().send(
    new SendMessageCommand({
      QueueUrl: url,
      MessageBody: JSON.stringify(body),
      ...(reason ? { MessageAttributes: { reason: { DataType: 'String', StringValue: reason } } } : {}),
    }),
  );
  return MessageId as string;
}

/** The message ids a `dlq list` shows of a queue. */
export async function deadLetterIds(queue: 'drain' | 'webhooks'): Promise<string[]> {
  const letters = (await adminJson(['dlq', 'list', '--queue', queue])) as Array<{ messageId: string }>;
  return letters.map((letter) => letter.messageId);
}
