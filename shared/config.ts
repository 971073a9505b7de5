// The environment a function runs in: the names of the variables the stack and local mode set, and their readers.

/** Variables every function gets from the stack (and local mode sets once for all handlers). */
export const environmentNames = {
  tableName: 'TABLE_NAME',
  /** Set only for functions whose route may send to the drain queue. */
  drainQueueUrl: 'DRAIN_QUEUE_URL',
  /** Set only for the drain worker, which moves a job it gives up on to the dead-letter queue itself. */
  drainDeadLetterQueueUrl: 'DRAIN_DEAD_LETTER_QUEUE_URL',
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
