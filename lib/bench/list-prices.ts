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
  /** SQS standard queues, past the free tier: per million requests (each up to 64 KB; a batch of 10 is one). */
  sqsRequestPerMillion: 0.4,
} as const;

/** HTTP API meters a request as one per started 512 KB of request and response together. */
export const HTTP_API_METERING_BYTES = 512 * 1024;

/** What a workload costs at list prices, by service. */
export interface CostBreakdown {
  readonly dynamoDbReads: number;
  readonly dynamoDbWrites: number;
  readonly lambdaCompute: number;
  readonly lambdaRequests: number;
  readonly apiGateway: number;
  readonly total: number;
}

/** The usage of a workload, summed over all of it. */
export interface Usage {
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Lambda bills duration rounded up to the millisecond, at the function's configured memory. */
  readonly gbSeconds: number;
  readonly invocations: number;
  /** API Gateway requests as metered: one per started 512 KB of request and response. */
  readonly meteredRequests: number;
}

export function costAtListPrices(usage: Usage): CostBreakdown {
  const perMillion = (count: number, price: number) => (count * price) / 1e6;
  const dynamoDbReads = perMillion(usage.readUnits, listPrices.dynamoDbReadRequestUnitPerMillion);
  const dynamoDbWrites = perMillion(usage.writeUnits, listPrices.dynamoDbWriteRequestUnitPerMillion);
  const lambdaCompute = usage.gbSeconds * listPrices.lambdaArmGbSecond;
  const lambdaRequests = perMillion(usage.invocations, listPrices.lambdaRequestPerMillion);
  const apiGateway = perMillion(usage.meteredRequests, listPrices.httpApiRequestPerMillion);
  return {
    dynamoDbReads,
    dynamoDbWrites,
    lambdaCompute,
    lambdaRequests,
    apiGateway,
    total: dynamoDbReads + dynamoDbWrites + lambdaCompute + lambdaRequests + apiGateway,
  };
}

/** Lambda's GB-seconds for one invocation: its duration rounded up to the millisecond, at the configured memory. */
export function gbSecondsOf(durationMs: number, memoryMb: number): number {
  return (Math.ceil(durationMs) / 1000) * (memoryMb / 1024);
}
