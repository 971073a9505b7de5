// The service's webhook events by name, and `verifyWebhook`: the Standard Webhooks signature check that turns a delivery into a typed event.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { webhooks } from './api-v1.d.ts';

/** Every event type the service sends, as the OpenAPI documents' `webhooks` name them. */
export type WebhookEventType = keyof webhooks;

/** The body of one event type, read from the documents' `webhooks` section. */
export type WebhookEventOf<T extends WebhookEventType> = webhooks[T]['post'] extends {
  requestBody: { content: { 'application/json': infer Event } };
}
  ? Event
  : never;

/** Any event; `type` tells them apart. */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

export type BatchCommittedEvent = WebhookEventOf<'batch.committed'>;
export type BatchDrainedEvent = WebhookEventOf<'batch.drained'>;
export type BatchFailedEvent = WebhookEventOf<'batch.failed'>;
export type RecommendationsUpdatedEvent = WebhookEventOf<'recommendations.updated'>;
export type PriceApprovedEvent = WebhookEventOf<'price.approved'>;
export type PriceSecondApprovalEvent = WebhookEventOf<'price.second_approval'>;
export type WritebackPendingEvent = WebhookEventOf<'writeback.pending'>;
export type WritebackAppliedEvent = WebhookEventOf<'writeback.applied'>;
export type WritebackFailedEvent = WebhookEventOf<'writeback.failed'>;
/** Sent only when an admin asks for a test from the console; no endpoint subscribes to it. */
export type WebhookTestEvent = WebhookEventOf<'webhook.test'>;

/**
 * The names above an endpoint can subscribe to: all but `webhook.test`, which goes only to the endpoint a test was
 * asked for (webhooks.test.ts fails to compile while one is missing).
 */
export const webhookEventTypes = [
  'batch.committed',
  'batch.drained',
  'batch.failed',
  'recommendations.updated',
  'price.approved',
  'price.second_approval',
  'writeback.pending',
  'writeback.applied',
  'writeback.failed',
] as const satisfies readonly WebhookEventType[];

/** The Standard Webhooks default: a message signed more than five minutes from the receiver's clock is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export type WebhookVerificationFailure =
  'missing_header' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature' | 'invalid_payload';

/** The delivery is not a genuine, fresh event from the service: answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationFailure;

  constructor(reason: WebhookVerificationFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A fetch `Headers` (anything with `get`), or Node's `request.headers` (any letter case). */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from `now`, either way. Default 300. */
  readonly toleranceSeconds?: number;
  /** The receiver's clock; tests pass their own. */
  readonly now?: Date;
}

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_` secret (the prefix is optional, as the Standard Webhooks libraries read it). */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (!BASE64.test(encoded)) throw new TypeError('the signing secret is not a whsec_ secret: `whsec_` and base64');
  return Buffer.from(encoded, 'base64');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if ('get' in headers && typeof headers.get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    // A header sent on several lines holds what each line held: here, more signatures.
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name);
  if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

/** Each `v1,<base64>` signature of the header, as bytes; other versions are not this scheme's and are skipped. */
function v1Signatures(value: string): Buffer[] {
  return value
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
}

function isEvent(value: unknown): value is WebhookEvent {
  if (typeof value !== 'object' || value === null) return false;
  const { type, id, data } = value as Record<string, unknown>;
  return typeof type === 'string' && typeof id === 'string' && typeof data === 'object' && data !== null;
}

/**
 * Checks a delivery's Standard Webhooks signature and returns its event. `body` is the request's raw body, exactly as
 * received (parse nothing before this); `secret` is the endpoint's `whsec_` secret, or several during a rotation.
 * The message must be signed by one of them (the header may carry several signatures: after a rotation the service
 * signs with the old and the new secret) and within `toleranceSeconds` of now. Signatures are compared in constant
 * time. Throws `WebhookVerificationError` otherwise.
 *
 * Delivery is at least once: an event may come again with the same `id` (the `webhook-id` header), and a receiver
 * that has handled an id may drop it.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = new Date() }: VerifyWebhookOptions = {},
): WebhookEvent {
  const keys = (typeof secret === 'string' ? [secret] : secret).map(secretKey);
  const id = required(headers, 'webhook-id');
  const timestamp = required(headers, 'webhook-timestamp');
  const signatures = v1Signatures(required(headers, 'webhook-signature'));

  if (!/^[0-9]{1,15}$/.test(timestamp))
    throw new WebhookVerificationError('invalid_timestamp', 'the webhook-timestamp header is not a number of seconds');
  if (Math.abs(now.getTime() / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `the message was signed more than ${toleranceSeconds} s from now`);
  }

  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), payload]);
  const genuine = keys.some((key) => {
    const expected = createHmac('sha256', key).update(signed).digest();
    // timingSafeEqual needs equal lengths; a signature's length says nothing of the key.
    return signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
  if (!genuine) throw new WebhookVerificationError('no_matching_signature', 'no signature matches the secret');

  let event: unknown;
  try {
    event = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
  if (!isEvent(event) || event.id !== id) {
    throw new WebhookVerificationError('invalid_payload', 'the body is not an event of the service, or not the one webhook-id names');
  }
  return event;
}
