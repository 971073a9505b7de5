// An endpoint's circuit breaker: consecutive failed attempts open it for a cool-off, then one probe at a time decides whether it closes.
import { environmentNames, positiveNumber } from '#platform/config.ts';
import { updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import type { WebhookEndpointRecord } from './endpoint-schema.ts';

/** Failed attempts in a row (timeouts, connection errors, non-2xx answers) that open the breaker. */
export const BREAKER_THRESHOLD = 5;
/** How long an open breaker defers the endpoint's deliveries before one probe attempt is let through. */
export const BREAKER_COOL_OFF_MS = 60_000;

/** The cool-off as this process runs it: set outright by WEBHOOK_BREAKER_COOL_OFF_MS, else scaled as the retry schedule is. */
export function breakerCoolOffMs(): number {
  const set = positiveNumber(process.env[environmentNames.webhookBreakerCoolOffMs]);
  if (set !== undefined) return set;
  const scale = positiveNumber(process.env[environmentNames.webhookRetryScale]) ?? 1;
  return Math.round(BREAKER_COOL_OFF_MS * scale);
}

export const circuitStates = ['closed', 'open', 'half_open'] as const;
export type CircuitState = (typeof circuitStates)[number];

type BreakerFields = Pick<WebhookEndpointRecord, 'breakerFailures' | 'breakerOpenUntil' | 'breakerProbeUntil'>;

/** Closed until the threshold is reached; open through the cool-off; half-open after it, until a probe decides. */
export function circuitOf(endpoint: BreakerFields, nowMs: number): CircuitState {
  if (endpoint.breakerOpenUntil === undefined) return 'closed';
  return nowMs < endpoint.breakerOpenUntil ? 'open' : 'half_open';
}

/** What the breaker lets an attempt do now: go, go as the one probe, or wait until a moment. */
export type Gate = { readonly go: 'send' | 'probe' } | { readonly deferUntil: number };

export function gate(endpoint: BreakerFields, nowMs: number): Gate {
  const state = circuitOf(endpoint, nowMs);
  if (state === 'closed') return { go: 'send' };
  if (state === 'open') return { deferUntil: endpoint.breakerOpenUntil ?? nowMs };
  // Half-open: one probe at a time; a probe's claim lapses on its own if its worker dies.
  if (endpoint.breakerProbeUntil !== undefined && endpoint.breakerProbeUntil > nowMs) return { deferUntil: endpoint.breakerProbeUntil };
  return { go: 'probe' };
}

/** The breaker after an attempt: a success closes it and forgets the streak; a failure counts, and opens it at the threshold. */
export function afterAttempt(endpoint: BreakerFields, delivered: boolean, nowMs: number, coolOffMs: number): BreakerFields {
  if (delivered) return {};
  const failures = (endpoint.breakerFailures ?? 0) + 1;
  return failures >= BREAKER_THRESHOLD ? { breakerFailures: failures, breakerOpenUntil: nowMs + coolOffMs } : { breakerFailures: failures };
}

/**
 * Claims the half-open breaker's one probe for `holdMs`: refused when another attempt holds it, or when the breaker
 * changed since it was read.
 */
export async function claimProbe(endpoint: WebhookEndpointRecord, holdMs: number, nowMs: number): Promise<boolean> {
  const claimed = await updateItem({
    Key: keys.webhookEndpoint(endpoint.workspaceId, endpoint.endpointId),
    UpdateExpression: 'SET breakerProbeUntil = :until',
    ConditionExpression: 'breakerOpenUntil = :seen AND (attribute_not_exists(breakerProbeUntil) OR breakerProbeUntil <= :now)',
    ExpressionAttributeValues: { ':until': nowMs + holdMs, ':seen': endpoint.breakerOpenUntil, ':now': nowMs },
  });
  return !claimed.refused;
}

/**
 * Writes the breaker's change after an attempt, as an update of the stored counts rather than of what was read, so
 * that attempts side by side each count: a success on a closed breaker with no streak writes nothing.
 */
export async function recordBreaker(endpoint: WebhookEndpointRecord, delivered: boolean, nowMs: number): Promise<void> {
  const key = keys.webhookEndpoint(endpoint.workspaceId, endpoint.endpointId);
  if (delivered) {
    if (endpoint.breakerFailures === undefined && endpoint.breakerOpenUntil === undefined) return;
    await updateItem({
      Key: key,
      UpdateExpression: 'REMOVE breakerFailures, breakerOpenUntil, breakerProbeUntil',
      ConditionExpression: 'attribute_exists(PK)',
    });
    return;
  }
  const counted = await updateItem({
    Key: key,
    UpdateExpression: 'ADD breakerFailures :one REMOVE breakerProbeUntil',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':one': 1 },
    ReturnValues: 'ALL_NEW',
  });
  if (counted.refused) return;
  const failures = (counted.attributes as BreakerFields | undefined)?.breakerFailures ?? 0;
  if (failures < BREAKER_THRESHOLD) return;
  // Opened, or opened again after a failed probe; not pushed further out by a sibling's failure while it is open.
  await updateItem({
    Key: key,
    UpdateExpression: 'SET breakerOpenUntil = :until',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(breakerOpenUntil) OR breakerOpenUntil <= :now)',
    ExpressionAttributeValues: { ':until': nowMs + breakerCoolOffMs(), ':now': nowMs },
  });
}
