// Webhook transport: the signed HTTP request of one attempt, sent to the address the URL guard checked and no other.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { environmentNames } from '#platform/config.ts';
import type { WebhookEvent } from './events.ts';
import { pinnedLookup, type ResolvedTarget } from './url-guard.ts';

/** Only a 2xx within this long counts as delivered. */
export const DELIVERY_TIMEOUT_MS = 10 * 1_000;
/** How much of a receiver's answer the attempt log keeps. */
export const LOGGED_RESPONSE_BYTES = 1_024;

/** A setting from the environment, when it is a positive number. */
export function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text && Number.isFinite(value) && value > 0 ? value : undefined;
}

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

/** The first bytes of an answer, up to the log's limit; the rest is not read. */
function readHead(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      response.destroy();
      resolve(Buffer.concat(chunks).subarray(0, LOGGED_RESPONSE_BYTES).toString('utf8'));
    };
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
 * deadline: only a 2xx whose status line arrives within it counts.
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
        void readHead(response).then((text) => finish({ status, latencyMs, response: text }));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ latencyMs: latency(), error: `no answer within ${timeoutMs} ms` });
    }, timeoutMs);
    request.on('error', (error) => finish({ latencyMs: latency(), error: `request failed: ${error.message}` }));
    request.end(body);
  });
}
