// Webhook transport: the signed HTTP request of one attempt, sent to the address the URL guard checked and no other.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { environmentNames, positiveNumber } from '#platform/config.ts';
import type { WebhookEvent } from './events.ts';
import { pinnedLookup, type ResolvedTarget } from './url-guard.ts';

/**
 * Only a 2xx whose status line arrives within this long counts as delivered. Short, because an attempt holds one of
 * its endpoint's and its workspace's few in-flight slots (fairness.ts) for as long as it waits.
 */
export const DELIVERY_TIMEOUT_MS = 5 * 1_000;
/** After the status line, how long the rest of the answer is read for the log before the connection is cut. */
export const BODY_GRACE_MS = 1_000;
/** How much of a receiver's answer the attempt log keeps. */
export const LOGGED_RESPONSE_BYTES = 1_024;

/** A setting from the environment, when it is a positive number. */
export function deliveryTimeoutMs(): number {
  return positiveNumber(process.env[environmentNames.webhookTimeoutMs]) ?? DELIVERY_TIMEOUT_MS;
}

/** The Standard Webhooks headers: one `v1,` signature per secret in use (two for 24 h after a rotation). */
export function signedHeaders(event: WebhookEvent, body: string, secrets: readonly string[], at: Date): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(event.id, at, body));
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

export interface PostOutcome {
  readonly status?: number;
  readonly latencyMs: number;
  readonly error?: string;
  readonly response?: string;
}

/**
 * The first bytes of an answer, up to the log's limit, read for at most `graceMs`: a receiver that sends its status
 * and never ends the body is cut off, and its status still counts.
 */
function readHead(response: IncomingMessage, graceMs: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(grace);
      response.destroy();
      resolve(Buffer.concat(chunks).subarray(0, LOGGED_RESPONSE_BYTES).toString('utf8'));
    };
    const grace = setTimeout(done, graceMs);
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= LOGGED_RESPONSE_BYTES) done();
    });
    response.on('end', done);
    response.on('error', done);
    response.on('aborted', done);
  });
}

/**
 * POSTs to the checked address only (the name is kept for Host and TLS SNI), follows no redirect, and gives up at the
 * deadline: only a 2xx whose status line arrives within it counts. The outcome is decided by the status line; what
 * follows it is only read, briefly and bounded, for the log.
 */
export function postToTarget(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const url = new URL(target.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    let answered = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const request = send(
      {
        protocol: url.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        lookup: pinnedLookup(target),
        ...(url.protocol === 'https:' ? { servername: target.hostname } : {}),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'pricing-service-webhooks/1',
        },
        // A keep-alive pool would reuse a socket opened to an address checked for another endpoint.
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const latencyMs = latency();
        // The answer is in: the deadline no longer applies, and the body gets its own short grace.
        clearTimeout(timer);
        answered = true;
        void readHead(response, Math.min(BODY_GRACE_MS, timeoutMs)).then((text) => finish({ status, latencyMs, response: text }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ latencyMs: latency(), error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    // Once the status is in, cutting the body off is the service's own doing, not a failure of the request.
    request.on('error', (error) => answered || finish({ latencyMs: latency(), error: `request failed: ${error.message}` }));
    request.end(body);
  });
}
