// Webhook endpoint items in the table: create, list, read, update, delete, rotate the secret, and the health the deliveries report.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import { logger } from '#platform/observability.ts';
import { cancellationCodes, getItem, type Refused, type TransactRider, transactWrite, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { queryAll } from '#platform/table/query.ts';
import {
  MAX_ENDPOINTS_PER_WORKSPACE,
  type WebhookEndpoint,
  type WebhookEndpointRecord,
  WebhookEndpointRecordSchema,
  statusOf,
} from './endpoint-schema.ts';
import { reportWebhookHealth } from './health-metrics.ts';
import { dataKey, newSigningSecret, PREVIOUS_SECRET_ACCEPTED_MS, sealSecret } from './secrets.ts';
import { assertDeliverableUrl, type LookupAll, UnsafeWebhookUrl } from './url-guard.ts';

/** An endpoint that keeps failing this long after its first parked delivery is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** How a URL is checked: the loopback switch of local mode, and a resolver tests inject. */
export interface UrlCheck {
  readonly allowLoopbackHttp: boolean;
  readonly lookup?: LookupAll;
}

export interface NewEndpoint {
  readonly url: string;
  readonly eventTypes: readonly string[];
  readonly enabled?: boolean;
  readonly description?: string;
}

export interface EndpointChanges {
  readonly url?: string;
  readonly eventTypes?: readonly string[];
  readonly enabled?: boolean;
  /** `null` removes it. */
  readonly description?: string | null;
}

/** A new endpoint, or a rotated one, with its secret in plaintext: the only time it is ever shown. */
export interface WithSecret {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
}

function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  const record = v.parse(WebhookEndpointRecordSchema, item);
  return { ...record, status: statusOf(record) };
}

function notFound(endpointId: string): ApiError {
  return new ApiError('not_found', `No webhook endpoint ${endpointId} in this workspace.`);
}

/** The URL as the guard accepts it, or 400 naming `url` with the guard's reason. */
async function checkedUrl(url: string, check: UrlCheck): Promise<string> {
  try {
    return (await assertDeliverableUrl(url, check)).url;
  } catch (error) {
    if (error instanceof UnsafeWebhookUrl) {
      throw new ApiError('invalid_request', `Invalid url: ${error.message}.`, { param: 'url' });
    }
    throw error;
  }
}

/**
 * Registers an endpoint: its URL checked, a secret minted and sealed. The endpoint, the workspace's count under its
 * cap and the workspace's existence are one transaction, so that two creates at once cannot pass the cap.
 */
export async function createEndpoint(
  workspaceId: string,
  input: NewEndpoint,
  check: UrlCheck,
  nowMs: number,
  answer?: TransactRider<WithSecret>,
): Promise<WithSecret> {
  const url = await checkedUrl(input.url, check);
  const [endpointId, at, secret, enabled] = [newId('we'), new Date(nowMs).toISOString(), newSigningSecret(), input.enabled ?? true];
  const record = v.parse(WebhookEndpointRecordSchema, {
    endpointId,
    workspaceId,
    url,
    description: input.description,
    eventTypes: [...input.eventTypes],
    enabled,
    disabledReason: enabled ? undefined : 'owner',
    disabledAt: enabled ? undefined : at,
    secret: sealSecret(await dataKey(), secret, { workspaceId, endpointId }),
    secretCreatedAt: at,
    createdAt: at,
    updatedAt: at,
  } satisfies WebhookEndpointRecord);
  const created: WithSecret = { endpoint: { ...record, status: statusOf(record) }, secret };
  // With an Idempotency-Key, the answer a retry replays commits with the endpoint (shared/edge/http/idempotent.ts).
  const answered = answer ? [await answer.entry(created)] : [];
  try {
    await transactWrite([
      { ConditionCheck: { Key: keys.workspace(workspaceId), ConditionExpression: 'attribute_exists(PK)' } },
      {
        Update: {
          Key: keys.webhookEndpointCount(workspaceId),
          UpdateExpression: 'ADD endpoints :one',
          ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :cap',
          ExpressionAttributeValues: { ':one': 1, ':cap': MAX_ENDPOINTS_PER_WORKSPACE },
        },
      },
      {
        Put: {
          Item: { ...keys.webhookEndpoint(workspaceId, endpointId), type: 'webhookEndpoint', ...stripUndefined(record) },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      ...answered,
    ]);
  } catch (error) {
    answer?.refusedAt(error, 3);
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new ApiError('not_found', `workspace ${workspaceId} does not exist`);
    if (codes?.[1] === 'ConditionalCheckFailed') {
      throw new ApiError('invalid_request', `A workspace has at most ${MAX_ENDPOINTS_PER_WORKSPACE} webhook endpoints; delete one first.`, {
        param: 'url',
      });
    }
    throw error;
  }
  return created;
}

function stripUndefined<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
}

/** Every endpoint of the workspace, in id order, whatever its status: the delivery side filters by subscription. */
export async function listEndpoints(workspaceId: string): Promise<WebhookEndpoint[]> {
  const prefix = keys.webhookEndpointPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
  });
  return items.map(toEndpoint);
}

/** The enabled endpoints (healthy or failing) subscribed to one event type: where an event of that type goes. */
export async function endpointsSubscribedTo(workspaceId: string, eventType: string): Promise<WebhookEndpoint[]> {
  return (await listEndpoints(workspaceId)).filter((endpoint) => endpoint.enabled && endpoint.eventTypes.includes(eventType));
}

/** One endpoint of the workspace; another workspace's id reads as absent, since the workspace is in the key. */
export async function getEndpoint(workspaceId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
  const Item = await getItem({ Key: keys.webhookEndpoint(workspaceId, endpointId), ConsistentRead: true });
  return Item ? toEndpoint(Item) : undefined;
}

export async function requireEndpoint(workspaceId: string, endpointId: string): Promise<WebhookEndpoint> {
  const endpoint = await getEndpoint(workspaceId, endpointId);
  if (!endpoint) throw notFound(endpointId);
  return endpoint;
}

/** DynamoDB refuses an empty map of values. */
function nonEmpty(values: Record<string, unknown>): Record<string, unknown> | undefined {
  return Object.keys(values).length > 0 ? values : undefined;
}

interface Update {
  readonly set: Record<string, unknown>;
  readonly remove: readonly string[];
}

/** The endpoint as an update left it, or the refusal of its condition (the endpoint's existence among it). */
type Applied = { readonly refused: false; readonly endpoint: WebhookEndpoint } | Refused;

async function applyUpdate(
  workspaceId: string,
  endpointId: string,
  update: Update,
  condition?: { expression: string; values: Record<string, unknown> },
): Promise<Applied> {
  const setEntries = Object.entries(update.set);
  const names = Object.fromEntries([...setEntries.map(([name]) => name), ...update.remove].map((name) => [`#${name}`, name]));
  const clauses = [
    setEntries.length > 0 ? `SET ${setEntries.map(([name]) => `#${name} = :${name}`).join(', ')}` : '',
    update.remove.length > 0 ? `REMOVE ${update.remove.map((name) => `#${name}`).join(', ')}` : '',
  ].filter(Boolean);
  const updated = await updateItem({
    Key: keys.webhookEndpoint(workspaceId, endpointId),
    UpdateExpression: clauses.join(' '),
    ConditionExpression: ['attribute_exists(PK)', condition?.expression].filter(Boolean).join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: nonEmpty({
      ...Object.fromEntries(setEntries.map(([name, value]) => [`:${name}`, value])),
      ...condition?.values,
    }),
    ReturnValues: 'ALL_NEW',
  });
  return updated.refused ? updated : { refused: false, endpoint: toEndpoint(updated.attributes ?? {}) };
}

/**
 * Changes the URL (checked again), the subscriptions, the description or the switch. Re-enabling starts afresh: the
 * failing streak that may have disabled it is forgotten.
 */
export async function updateEndpoint(
  workspaceId: string,
  endpointId: string,
  changes: EndpointChanges,
  check: UrlCheck,
  nowMs: number,
): Promise<WebhookEndpoint> {
  const at = new Date(nowMs).toISOString();
  const set: Record<string, unknown> = { updatedAt: at };
  const remove: string[] = [];
  // Checked before anything is written, and before the id is even looked at: a refused URL changes nothing.
  if (changes.url !== undefined) set.url = await checkedUrl(changes.url, check);
  if (changes.eventTypes !== undefined) set.eventTypes = [...changes.eventTypes];
  if (changes.description === null) remove.push('description');
  else if (changes.description !== undefined) set.description = changes.description;
  if (changes.enabled === true) {
    set.enabled = true;
    remove.push('failingSince', 'disabledReason', 'disabledAt');
  } else if (changes.enabled === false) {
    Object.assign(set, { enabled: false, disabledReason: 'owner', disabledAt: at });
  }
  // A new receiver, or one its owner says is back, gets its deliveries at once: the breaker's streak is forgotten.
  if (changes.enabled === true || changes.url !== undefined) remove.push('breakerFailures', 'breakerOpenUntil', 'breakerProbeUntil');
  const updated = await applyUpdate(workspaceId, endpointId, { set, remove });
  if (updated.refused) throw notFound(endpointId);
  return updated.endpoint;
}

/** Removes the endpoint and gives its place under the cap back, in one transaction. */
export async function deleteEndpoint(workspaceId: string, endpointId: string): Promise<void> {
  try {
    await transactWrite([
      { Delete: { Key: keys.webhookEndpoint(workspaceId, endpointId), ConditionExpression: 'attribute_exists(PK)' } },
      {
        Update: {
          Key: keys.webhookEndpointCount(workspaceId),
          UpdateExpression: 'ADD endpoints :minusOne',
          ExpressionAttributeValues: { ':minusOne': -1 },
        },
      },
    ]);
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') throw notFound(endpointId);
    throw error;
  }
}

/** Retries of a rotation that lost a race with another: each reads the secret anew. */
const ROTATE_ATTEMPTS = 3;

/**
 * A new secret; the one it replaces keeps signing beside it for 24 hours, so receivers can switch without losing an
 * event. A second rotation within those hours retires the oldest at once: two secrets at most are ever live.
 */
export async function rotateSecret(workspaceId: string, endpointId: string, nowMs: number): Promise<WithSecret> {
  const key = await dataKey();
  for (let attempt = 1; ; attempt += 1) {
    const current = await requireEndpoint(workspaceId, endpointId);
    const secret = newSigningSecret();
    const at = new Date(nowMs).toISOString();
    const rotated = await applyUpdate(
      workspaceId,
      endpointId,
      {
        set: {
          secret: sealSecret(key, secret, { workspaceId, endpointId }),
          secretCreatedAt: at,
          previousSecret: current.secret,
          previousSecretExpiresAt: new Date(nowMs + PREVIOUS_SECRET_ACCEPTED_MS).toISOString(),
          updatedAt: at,
        },
        remove: [],
      },
      // Only over the secret it read: two rotations at once must not both keep the same previous secret.
      { expression: 'secret = :expected', values: { ':expected': current.secret } },
    );
    if (!rotated.refused) return { endpoint: rotated.endpoint, secret };
    if (attempt >= ROTATE_ATTEMPTS) throw rotated.error;
  }
}

/**
 * A delivery to the endpoint was parked after its last try. The first such failure starts the streak; an endpoint
 * whose streak has lasted five days is disabled, and shows so where endpoints are listed.
 */
export async function markEndpointFailure(workspaceId: string, endpointId: string, nowMs: number): Promise<WebhookEndpoint | undefined> {
  const at = new Date(nowMs).toISOString();
  const started = await applyUpdate(
    workspaceId,
    endpointId,
    { set: { failingSince: at }, remove: [] },
    { expression: 'attribute_not_exists(failingSince)', values: {} },
  );
  // Refused: the streak had started already, or the endpoint is gone.
  const endpoint = started.refused ? await getEndpoint(workspaceId, endpointId) : started.endpoint;
  if (!endpoint) return undefined;
  if (!endpoint.enabled || !endpoint.failingSince || Date.parse(endpoint.failingSince) > nowMs - FAILING_DISABLES_AFTER_MS) return endpoint;
  const disabled = await applyUpdate(
    workspaceId,
    endpointId,
    { set: { enabled: false, disabledReason: 'failing', disabledAt: at, updatedAt: at }, remove: [] },
    // Not over a success or a re-enable that came in between.
    { expression: 'enabled = :true AND failingSince = :since', values: { ':true': true, ':since': endpoint.failingSince } },
  );
  if (disabled.refused) return getEndpoint(workspaceId, endpointId);
  logger.warn('webhook endpoint disabled', { workspaceId, endpointId, failingSince: endpoint.failingSince });
  reportWebhookHealth('disabled');
  return disabled.endpoint;
}

/**
 * A delivery got its 2xx: the failing streak ends. Given the endpoint as the caller holds it, a healthy one costs no
 * write.
 */
export async function markEndpointSuccess(
  workspaceId: string,
  endpointId: string,
  _nowMs: number,
  known?: WebhookEndpoint,
): Promise<WebhookEndpoint | undefined> {
  if (known && !known.failingSince) return known;
  const ended = await applyUpdate(
    workspaceId,
    endpointId,
    { set: {}, remove: ['failingSince'] },
    { expression: 'attribute_exists(failingSince)', values: {} },
  );
  return ended.refused ? getEndpoint(workspaceId, endpointId) : ended.endpoint;
}
