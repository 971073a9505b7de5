// The Lambda context object local mode hands to handlers, with a deadline that getRemainingTimeInMillis counts down to.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_REGION = 'us-east-1';

export interface LocalFunction {
  readonly name: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

export function createLambdaContext(fn: LocalFunction, startedAt = Date.now()): Context {
  const deadline = startedAt + fn.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${fn.name}`,
    memoryLimitInMB: String(fn.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fn.name}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export class FunctionTimeout extends Error {
  constructor(fn: LocalFunction) {
    super(`${fn.name} timed out after ${fn.timeoutSeconds} s`);
    this.name = 'FunctionTimeout';
  }
}

/** Runs a handler as Lambda would: with its context, and given up on once its timeout passes. */
export async function invokeWithTimeout<TEvent, TResult>(
  fn: LocalFunction,
  handler: (event: TEvent, context: Context) => Promise<TResult>,
  event: TEvent,
): Promise<TResult> {
  const context = createLambdaContext(fn);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FunctionTimeout(fn)), fn.timeoutSeconds * 1000);
  });
  try {
    return await Promise.race([handler(event, context), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
