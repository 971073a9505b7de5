// The Idempotency-Key of the creating routes whose row opts in: a retry with the same key and body gets the first call's answer, byte for byte.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger } from '#platform/observability.ts';
import type { TransactRider } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { Principal } from '#shared/api-keys/authenticate.ts';
import { readOptionalIdempotencyKey } from '#shared/idempotency/key.ts';
import {
  abandonCall,
  type AnswerCodec,
  beginCall,
  bodyHash,
  completeCall,
  completionEntry,
  keyLostIn,
  lostKeyAnswer,
  type IdempotentOperation,
  REPLAY_WINDOW_MS,
  type StoredAnswer,
} from '#shared/idempotency/store.ts';
import { firstTooDeepInText, readBodyText } from './request.ts';

/** How the route's row asks for it: `stored` keeps the answer compressed, `sealed` keeps it sealed under the data key. */
export type IdempotencyMode = 'stored' | 'sealed';

/** An answer as the handler gave it: a status, headers, and the body already serialised, as it is sent and stored. */
export type IdempotentAnswer = StoredAnswer;

/**
 * What a handler whose work is one transaction may do with its call's key: put the store of its answer in that
 * transaction, so that the work and the answer a retry replays commit together or not at all. The body is serialised
 * as the reply is, so the stored answer is the reply's bytes.
 */
export interface AnswerInWork {
  /** The rider that stores `body` as the answer with status `statusCode`, built from the work's result by `view`. */
  readonly rider: <Result>(statusCode: number, view: (result: Result) => unknown) => TransactRider<Result>;
}

/** What the wrapper needs of the request; the rest is the handler's. */
export interface KeyedRequest {
  readonly event: APIGatewayProxyEventV2;
  readonly principal: Pick<Principal, 'workspaceId' | 'family' | 'keyId'>;
  readonly nowMs: number;
  readonly remainingMs: () => number;
}

/** The same body resent with other whitespace or key order is the same request; any other change is another. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/**
 * What a key is bound to: the body, read as JSON when it is (text the handler will refuse is bound as it is), and the
 * key's family, so that a sandbox key never replays a live key's answer under the same key, nor the other way round.
 */
export function idempotentRequestHash(family: string, bodyText: string): string {
  let body: unknown = { text: bodyText };
  // Nesting is measured before anything is parsed, as the handler's own read does (request.ts).
  if (bodyText !== '' && firstTooDeepInText(bodyText) === undefined) {
    try {
      body = { json: canonical(JSON.parse(bodyText)) };
    } catch {
      // Not JSON: bound as text; the handler refuses it, and the key is let go.
    }
  }
  return bodyHash({ family, body });
}

/**
 * The store of one route's keys: items of its own, kept for the replay window and then left to expire. A `sealed`
 * route's handler hands over the seal (shared/idempotency/sealed.ts), so that only its function bundles the data key's
 * reader; a row and a handler that disagree fail when the handler is built.
 */
export function routeOperation(routeId: string, mode: IdempotencyMode, seal: AnswerCodec | undefined): IdempotentOperation {
  if ((mode === 'sealed') !== (seal !== undefined)) {
    throw new Error(`route ${routeId}: its row says its answers are ${mode}, and its handler ${seal ? 'gives' : 'gives no'} seal`);
  }
  return {
    itemKey: (workspaceId, digest) => keys.idempotentCall(workspaceId, routeId, digest),
    itemType: 'idempotentCall',
    retentionSeconds: REPLAY_WINDOW_MS / 1000,
    boundTo: 'a key of the other mode (live or sandbox)',
    ...(seal ? { codec: seal } : {}),
  };
}

/** Only a success is stored: a refusal or a fault lets the key go, so that a retry runs afresh. */
function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * Runs the handler once per key: without the header it runs as it always did; with it, the key is claimed first, and
 * a retry gets the stored answer with `Idempotent-Replayed: true`, a `409` while the first call runs, or a `422` when
 * the body differs. The key is checked before the body, which the handler reads.
 */
export async function answerOncePerKey(
  operation: IdempotentOperation,
  request: KeyedRequest,
  run: (withWork: AnswerInWork | undefined) => Promise<IdempotentAnswer>,
): Promise<IdempotentAnswer> {
  const idempotencyKey = readOptionalIdempotencyKey(request.event);
  if (idempotencyKey === undefined) return run(undefined);
  const { workspaceId, family, keyId } = request.principal;
  const hash = idempotentRequestHash(family, readBodyText(request.event));
  const caller = { workspaceId, callerId: keyId };
  const started = await beginCall(operation, caller, idempotencyKey, hash, request.nowMs, request.remainingMs());
  if (started.kind === 'replay') {
    return { statusCode: started.statusCode, json: started.json, headers: { ...started.headers, 'Idempotent-Replayed': 'true' } };
  }
  let storedWithWork: StoredAnswer | undefined;
  const withWork: AnswerInWork = {
    rider: (statusCode, view) => ({
      entry: async (result) => {
        storedWithWork = { statusCode, json: JSON.stringify(view(result)) };
        return completionEntry(operation, started.call, storedWithWork);
      },
      refusedAt: (error, index) => {
        if (keyLostIn(error, index)) throw lostKeyAnswer();
      },
    }),
  };
  let answer: IdempotentAnswer;
  try {
    answer = await run(withWork);
  } catch (error) {
    await abandonCall(operation, started.call).catch(() => undefined);
    throw error;
  }
  if (!isSuccess(answer.statusCode)) {
    await abandonCall(operation, started.call);
    return answer;
  }
  // Stored with the work already, as it was sent: nothing is left to write.
  if (storedWithWork && sameAnswer(storedWithWork, answer)) return answer;
  try {
    await completeCall(operation, started.call, answer);
  } catch (error) {
    // The work is done and cannot be undone: its caller gets its answer. A retry meets the marker until it runs out,
    // then runs afresh; the body is never logged, since it may show a secret.
    logger.warn('the answer of an idempotent call could not be stored', { error: error as Error });
  }
  return answer;
}

function sameAnswer(stored: StoredAnswer, sent: StoredAnswer): boolean {
  return stored.statusCode === sent.statusCode && stored.json === sent.json && Object.keys(sent.headers ?? {}).length === 0;
}

/** What a handler whose row takes an Idempotency-Key hands its endpoint: its answers kept by key, sealed or not. */
export interface KeyStore {
  readonly forRoute: (
    routeId: string,
    mode: IdempotencyMode,
  ) => (request: KeyedRequest, run: (withWork: AnswerInWork | undefined) => Promise<IdempotentAnswer>) => Promise<IdempotentAnswer>;
}

/** The key store of a route's answers; `seal` (shared/idempotency/sealed.ts) for a route whose answers show a secret. */
export function keyStore(seal?: AnswerCodec): KeyStore {
  return {
    forRoute: (routeId, mode) => {
      const operation = routeOperation(routeId, mode, seal);
      return (request, run) => answerOncePerKey(operation, request, run);
    },
  };
}
