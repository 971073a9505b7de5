// Local invocations as Lambda runs them: the context object with its deadline, and the end of the invocation at that deadline.
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { fenceSharedClients, hasOutlivedTimeout, type Invocation, runInvocation } from './invocation-fence.ts';

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

/**
 * Runs a handler as Lambda would: with its context, and ended at its timeout. A promise cannot be killed, so the
 * invocation is fenced instead: the calls it starts after its deadline are refused, and whatever it answers or throws
 * after its deadline is a timeout, as when Lambda stops the function before it answers.
 */
export async function invokeWithTimeout<TEvent, TResult>(
  fn: LocalFunction,
  handler: (event: TEvent, context: Context) => Promise<TResult>,
  event: TEvent,
): Promise<TResult> {
  await fenceSharedClients();
  const startedAt = Date.now();
  const context = createLambdaContext(fn, startedAt);
  const invocation: Invocation = {
    functionName: fn.name,
    requestId: context.awsRequestId,
    deadline: startedAt + fn.timeoutSeconds * 1000,
    timedOut: false,
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      invocation.timedOut = true;
      reject(new FunctionTimeout(fn));
    }, fn.timeoutSeconds * 1000);
  });
  try {
    const result = await Promise.race([runInvocation(invocation, () => handler(event, context)), timeout]);
    if (hasOutlivedTimeout(invocation)) throw new FunctionTimeout(fn);
    return result;
  } catch (error) {
    if (hasOutlivedTimeout(invocation)) throw error instanceof FunctionTimeout ? error : new FunctionTimeout(fn);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
