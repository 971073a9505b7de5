// Ends a local invocation at its timeout as Lambda does: DynamoDB and SQS calls it starts after its deadline are refused.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One invocation of a local function: Lambda would freeze or kill it at `deadline`; in-process only its calls can be stopped. */
export interface Invocation {
  readonly functionName: string;
  readonly requestId: string;
  readonly deadline: number;
  /** Set once the invocation is known to have outlived its deadline, by the timer or by a refused call. */
  timedOut: boolean;
}

// Invocations run concurrently in one process, so each one's deadline follows its own async context.
const invocations = new AsyncLocalStorage<Invocation>();

export function runInvocation<T>(invocation: Invocation, run: () => T): T {
  return invocations.run(invocation, run);
}

/** The deadline is read from the clock too: a timer on a busy machine may fire late, and Lambda's never does. */
export function hasOutlivedTimeout(invocation: Invocation): boolean {
  if (!invocation.timedOut && Date.now() >= invocation.deadline) invocation.timedOut = true;
  return invocation.timedOut;
}

export class InvocationTimedOut extends Error {
  constructor(invocation: Invocation, commandName: string) {
    super(`${invocation.functionName} (request ${invocation.requestId}) outlived its timeout: ${commandName} refused`);
    this.name = 'InvocationTimedOut';
  }
}

/** Refuses the call when the invocation it belongs to has timed out; calls outside any invocation (seeding, tests, the admin CLI) pass. */
function admit(commandName: string | undefined): void {
  const invocation = invocations.getStore();
  if (invocation && hasOutlivedTimeout(invocation)) throw new InvocationTimedOut(invocation, commandName ?? 'call');
}

const FENCE = { step: 'initialize', priority: 'high', name: 'localInvocationFence' } as const;

function fence(table: DynamoDBDocumentClient, queue: SQSClient): void {
  table.middlewareStack.add(
    (next, context) => async (args) => {
      admit(context.commandName);
      return next(args);
    },
    FENCE,
  );
  queue.middlewareStack.add(
    (next, context) => async (args) => {
      admit(context.commandName);
      return next(args);
    },
    FENCE,
  );
}

let fenced: Promise<void> | undefined;

/**
 * Fences the clients every handler shares (they are singletons, so fencing them once covers all handlers). The fence
 * runs before anything else of a call, so a refused call is neither sent nor charged to the request's capacity. The
 * clients are loaded on the first invocation, which has loaded them anyway, rather than with `npm start`'s own modules.
 */
export function fenceSharedClients(): Promise<void> {
  fenced ??= Promise.all([import('#platform/table/client.ts'), import('#platform/queue-client.ts')]).then(
    ([{ tableClient }, { queueClient }]) => fence(tableClient(), queueClient()),
  );
  return fenced;
}
