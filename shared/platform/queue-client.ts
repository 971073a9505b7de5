// The SQS client every function shares, reused across invocations so that connections stay warm.
import { SQSClient } from '@aws-sdk/client-sqs';
import { traceAwsClient } from './tracing.ts';

let shared: SQSClient | undefined;

/**
 * The endpoint comes from the SDK's usual resolution (AWS_ENDPOINT_URL_SQS in local mode), not from each queue URL's
 * host: the two agree in AWS, and locally the emulator's URLs name a host that only it knows.
 */
export function queueClient(): SQSClient {
  shared ??= traceAwsClient(new SQSClient({ useQueueUrlAsEndpoint: false }));
  return shared;
}
