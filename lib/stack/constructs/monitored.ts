// What the stack's metrics are read over (its functions, API, queues and table), the table operations it calls, and the math that sums series with gaps.
import { Duration } from 'aws-cdk-lib';
import type { IHttpApi, IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { type IMetric, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { QueueId } from '#platform/queues.ts';
import type { HttpRoute } from '#edge/routes.ts';
import type { ServiceQueue } from './service-queue.ts';

/** One function of the stack, as its row in the route table describes it. */
export interface MonitoredFunction {
  /** The row's id: the `route` dimension of the function's own metrics. */
  readonly id: string;
  readonly memoryMb: number;
  readonly function: IFunction;
  /** The API Gateway route it serves; none for the fallback and the queue workers. */
  readonly route?: Pick<HttpRoute, 'method' | 'path'>;
  /** What calls it: API Gateway (a route or the fallback), a queue, or a schedule. */
  readonly kind: 'http' | 'worker' | 'job';
  /** A scheduled job's rate. */
  readonly everyMinutes?: number;
}

export interface MonitoredService {
  readonly functions: readonly MonitoredFunction[];
  readonly api: IHttpApi;
  readonly stage: IHttpStage;
  readonly queues: ReadonlyMap<QueueId, ServiceQueue>;
  readonly table: ITable;
}

/** The route that prices lines: the one whose PricedLines count. */
export const pricingRouteId = 'priceLines';

/** The DynamoDB operations the service calls: SystemErrors is published per operation only. */
export const tableOperations = [
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'Query',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'BatchExecuteStatement',
] as const;

/** The sum of the metrics, each missing point taken as nought, as math an alarm or a graph reads. */
export function sumOfFilled(metrics: Record<string, IMetric>): string {
  return Object.keys(metrics)
    .map((id) => `FILL(${id}, 0)`)
    .join(' + ');
}

export function summed(usingMetrics: Record<string, IMetric>, period: Duration, label: string): MathExpression {
  return new MathExpression({ expression: sumOfFilled(usingMetrics), usingMetrics, period, label });
}

export const ONE_MINUTE = Duration.minutes(1);
export const FIVE_MINUTES = Duration.minutes(5);
