// AWS list prices the cost figures are computed at: us-east-1, on-demand, in US dollars, with the date they were read.

/** When these were last checked against the AWS price pages. Re-check before quoting a figure to a customer. */
export const LIST_PRICES_AS_OF = '2026-11-22';
export const LIST_PRICES_REGION = 'us-east-1';

export const listPrices = {
  /** DynamoDB on-demand (Standard table class): per million write request units. */
  dynamoDbWriteRequestUnitPerMillion: 0.625,
  /** DynamoDB on-demand (Standard table class): per million read request units. */
  dynamoDbReadRequestUnitPerMillion: 0.125,
  /** Lambda on Arm (Graviton), first 7.5 billion GB-seconds a month: per GB-second. */
  lambdaArmGbSecond: 0.0000133334,
  /** Lambda requests: per million invocations. */
  lambdaRequestPerMillion: 0.2,
  /** API Gateway HTTP API, first 300 million a month: per million requests, each metered in 512 KB increments. */
  httpApiRequestPerMillion: 1.0,
} as const;

/** HTTP API meters a request as one per started 512 KB of request and response together. */
export const HTTP_API_METERING_BYTES = 512 * 1024;
