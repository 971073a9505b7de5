// The environment a function runs in: the names of the variables the stack and local mode set, and their readers.

/** Variables every function gets from the stack (and local mode sets once for all handlers). */
export const environmentNames = {
  tableName: 'TABLE_NAME',
  /** Set only for functions whose route may send to the drain queue. */
  drainQueueUrl: 'DRAIN_QUEUE_URL',
  /** Set only for the drain worker, which moves a job it gives up on to the dead-letter queue itself. */
  drainDeadLetterQueueUrl: 'DRAIN_DEAD_LETTER_QUEUE_URL',
  /** Set for functions that record webhook events (they hand them on after commit) and for the delivery worker. */
  webhooksQueueUrl: 'WEBHOOKS_QUEUE_URL',
  webhooksDeadLetterQueueUrl: 'WEBHOOKS_DEAD_LETTER_QUEUE_URL',
  /** Local mode and tests only: multiplies every wait of the webhook retry schedule (e.g. 0.001); 1 when unset. */
  webhookRetryScale: 'WEBHOOK_RETRY_SCALE',
  /** Local mode and tests only: how long a receiver may take to answer; 5,000 ms when unset. */
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
  /** Local mode and tests only: how long an open circuit breaker defers an endpoint; when unset, 60 s × the retry scale. */
  webhookBreakerCoolOffMs: 'WEBHOOK_BREAKER_COOL_OFF_MS',
  /** The canary only: the API's base URL it prices through, as a caller on the internet reaches it. */
  canaryApiUrl: 'CANARY_API_URL',
  /** The canary only: the name or ARN of the secret holding its `erp` key; the key itself is never in the environment. */
  canaryKeySecretId: 'CANARY_KEY_SECRET_ID',
  /** The canary only: the SKU of the line it prices. */
  canarySku: 'CANARY_SKU',
} as const;

export const serviceName = 'pricing-service';
export const metricsNamespace = 'PricingService';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}

export function tableName(): string {
  return required(environmentNames.tableName);
}

export function drainQueueUrl(): string {
  return required(environmentNames.drainQueueUrl);
}

export function drainDeadLetterQueueUrl(): string {
  return required(environmentNames.drainDeadLetterQueueUrl);
}

export function webhooksQueueUrl(): string {
  return required(environmentNames.webhooksQueueUrl);
}

/** Whether this function may hand events on itself; one that cannot leaves them to the sweeper. */
export function hasWebhooksQueue(): boolean {
  return Boolean(process.env[environmentNames.webhooksQueueUrl]);
}

/** A setting read from the environment as a number above zero; anything else is unset, so the default holds. */
export function positiveNumber(text: string | undefined): number | undefined {
  const value = Number(text);
  return text && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** The canary's settings, which the stack sets on its function alone. */
export function canarySettings(): { apiUrl: string; keySecretId: string; sku: string } {
  return {
    apiUrl: required(environmentNames.canaryApiUrl),
    keySecretId: required(environmentNames.canaryKeySecretId),
    sku: required(environmentNames.canarySku),
  };
}
