// The CloudWatch metrics the dashboard and the alarms read: per route from API Gateway, per function from Lambda, the handlers' own EMF metrics, the queues, the table, and the cost at list prices.
import { Duration } from 'aws-cdk-lib';
import { type IMetric, MathExpression, Metric, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import { BANDS_LAG_METRIC } from '#shared/bands/lag.ts';
import { canaryMetricNames } from '#shared/canary/run.ts';
import { webhookHealthMetricNames } from '#shared/webhooks/health-metrics.ts';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { listPrices } from '#shared/cost/list-prices.ts';
import { requestMetricNames } from '#platform/observability.ts';
import type { QueueId } from '#platform/queues.ts';
import { table as tableDefinition } from '#platform/table/definition.ts';
import type { HttpRoute } from '#edge/routes.ts';
import type { ServiceQueue } from './service-queue.ts';
import {
  FIVE_MINUTES,
  type MonitoredFunction,
  type MonitoredService,
  ONE_MINUTE,
  pricingRouteId,
  summed,
  sumOfFilled,
  tableOperations,
} from './monitored.ts';

export class ServiceMetrics {
  private readonly service: MonitoredService;

  constructor(service: MonitoredService) {
    this.service = service;
  }

  get functions(): readonly MonitoredFunction[] {
    return this.service.functions;
  }

  get routed(): ReadonlyArray<MonitoredFunction & { route: Pick<HttpRoute, 'method' | 'path'> }> {
    return this.service.functions.filter(
      (fn): fn is MonitoredFunction & { route: Pick<HttpRoute, 'method' | 'path'> } => fn.route !== undefined,
    );
  }

  /** API Gateway's detailed metrics of one route, as the caller sees it: throttling, timeouts and crashes included. */
  route(
    route: Pick<HttpRoute, 'method' | 'path'>,
    metricName: 'Count' | '4xx' | '5xx' | 'Latency',
    statistic: string,
    period = FIVE_MINUTES,
  ): Metric {
    return new Metric({
      namespace: 'AWS/ApiGateway',
      metricName,
      dimensionsMap: { ApiId: this.service.api.apiId, Stage: this.service.stage.stageName, Method: route.method, Resource: route.path },
      statistic,
      period,
      label: `${route.method} ${route.path}`,
    });
  }

  /** 5xx answers as a share of the route's requests, in percent; nought while the route has fewer than `minRequests`. */
  route5xxRate(route: Pick<HttpRoute, 'method' | 'path'>, period = ONE_MINUTE, minRequests = 5): MathExpression {
    return new MathExpression({
      expression: `IF(requests >= ${minRequests}, 100 * errors / requests, 0)`,
      usingMetrics: { requests: this.route(route, 'Count', Stats.SUM, period), errors: this.route(route, '5xx', Stats.SUM, period) },
      period,
      label: `5xx % ${route.method} ${route.path}`,
    });
  }

  /**
   * Every route's share of 5xx answers, one series per route, as a Metrics Insights query: API Gateway records 5xx as 0
   * or 1 per request, so its average is the share. One query covers the routes there are and any added later.
   */
  routeServerErrorShare(period = ONE_MINUTE): MathExpression {
    const { api, stage } = this.service;
    return new MathExpression({
      expression: [
        'SELECT AVG("5xx") FROM SCHEMA("AWS/ApiGateway", "ApiId", "Method", "Resource", "Stage")',
        `WHERE "ApiId" = '${api.apiId}' AND "Stage" = '${stage.stageName}' GROUP BY "Method", "Resource"`,
      ].join(' '),
      usingMetrics: {},
      period,
      label: 'share of 5xx per route',
    });
  }

  /**
   * Every route's share of requests slower than its latency budget (shared/edge/latency-budgets.ts), one series per
   * route, from the `OverLatencyBudget` each request counts: more than 1% over it is a p99 over it.
   */
  routeOverLatencyBudgetShare(period = FIVE_MINUTES): MathExpression {
    return new MathExpression({
      expression: [
        `SELECT AVG("${requestMetricNames.overLatencyBudget}") FROM SCHEMA("${metricsNamespace}", "route", "service")`,
        `WHERE "service" = '${serviceName}' GROUP BY "route"`,
      ].join(' '),
      usingMetrics: {},
      period,
      label: 'share of requests over their latency budget',
    });
  }

  /** Webhook deliveries parked after their last attempt, and endpoints disabled after days of failing. */
  webhookHealth(period = FIVE_MINUTES): MathExpression {
    const metric = (metricName: string) =>
      new Metric({ namespace: metricsNamespace, metricName, dimensionsMap: { service: serviceName }, statistic: Stats.SUM, period });
    return new MathExpression({
      expression: 'FILL(parked, 0) + FILL(disabled, 0)',
      usingMetrics: { parked: metric(webhookHealthMetricNames.parked), disabled: metric(webhookHealthMetricNames.disabled) },
      period,
      label: 'webhook deliveries parked and endpoints disabled',
    });
  }

  /** The sum of a Lambda metric over some functions (at most 10: what an alarm's math may read). */
  lambdaSum(functions: readonly MonitoredFunction[], metricName: 'Errors' | 'Throttles', period = FIVE_MINUTES): MathExpression {
    if (functions.length > 10) throw new Error(`an alarm's math reads at most 10 metrics, not ${functions.length}`);
    const usingMetrics: Record<string, IMetric> = {};
    functions.forEach((fn, index) => (usingMetrics[`f${index}`] = this.lambda(fn, metricName, Stats.SUM, period)));
    return summed(usingMetrics, period, `${metricName}: ${functions.map((fn) => fn.id).join(', ')}`);
  }

  /**
   * What workers and jobs failed, summed: Lambda's errors (a crash, a timeout, running out of memory) and the messages
   * a queue worker answered as failed (`WorkerFailures`, one per message). Two metrics a function: at most 5 an alarm.
   */
  workerErrors(functions: readonly MonitoredFunction[], period = FIVE_MINUTES): MathExpression {
    if (functions.length > 5) throw new Error(`an alarm's math reads at most 10 metrics, not ${functions.length * 2}`);
    const usingMetrics: Record<string, IMetric> = {};
    functions.forEach((fn, index) => {
      usingMetrics[`e${index}`] = this.lambda(fn, 'Errors', Stats.SUM, period);
      usingMetrics[`m${index}`] = this.request(fn.id, requestMetricNames.workerFailures, Stats.SUM, period);
    });
    return summed(usingMetrics, period, `errors and failed messages: ${functions.map((fn) => fn.id).join(', ')}`);
  }

  /** One of the handlers' own metrics for a function's row. */
  request(id: string, metricName: string, statistic: string, period = FIVE_MINUTES): Metric {
    return new Metric({
      namespace: metricsNamespace,
      metricName,
      dimensionsMap: { service: serviceName, route: id },
      statistic,
      period,
      label: id,
    });
  }

  lambda(
    fn: MonitoredFunction,
    metricName: 'Invocations' | 'Errors' | 'Throttles' | 'Duration',
    statistic: string,
    period = FIVE_MINUTES,
  ): Metric {
    return fn.function.metric(metricName, { statistic, period, label: fn.id });
  }

  /** One of the service's own metrics that no route dimensions: one series for the whole service. */
  private serviceWide(metricName: string, statistic: string, period: Duration): Metric {
    return new Metric({ namespace: metricsNamespace, metricName, dimensionsMap: { service: serviceName }, statistic, period });
  }

  /** The age of the oldest batch of any workspace committed and not yet drained, as the sweeper reads it each minute. */
  oldestUndrainedBatch(period = FIVE_MINUTES): Metric {
    return this.serviceWide(requestMetricNames.oldestUndrainedBatch, Stats.MAXIMUM, period);
  }

  /** The bands job's lag, from a batch's commit to its bands recomputed. */
  bandsLag(statistic: string, period = FIVE_MINUTES): Metric {
    return this.serviceWide(BANDS_LAG_METRIC, statistic, period);
  }

  queue(queueId: QueueId): ServiceQueue {
    const queue = this.service.queues.get(queueId);
    if (!queue) throw new Error(`no queue ${queueId}`);
    return queue;
  }

  get queues(): ReadonlyMap<QueueId, ServiceQueue> {
    return this.service.queues;
  }

  /**
   * Read and write throttle events of the table and of each of its indexes, which DynamoDB counts apart, summed in
   * groups of at most 10 metrics (what an alarm's math may read): one alarm for each group.
   */
  tableThrottles(period = ONE_MINUTE): MathExpression[] {
    const table = this.service.table;
    const metrics: IMetric[] = [
      table.metric('ReadThrottleEvents', { statistic: Stats.SUM, period }),
      table.metric('WriteThrottleEvents', { statistic: Stats.SUM, period }),
      ...tableDefinition.indexes.flatMap((index) =>
        (['ReadThrottleEvents', 'WriteThrottleEvents'] as const).map(
          (metricName) =>
            new Metric({
              namespace: 'AWS/DynamoDB',
              metricName,
              dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: index.name },
              statistic: Stats.SUM,
              period,
            }),
        ),
      ),
    ];
    const groups: IMetric[][] = [];
    for (let start = 0; start < metrics.length; start += 10) groups.push(metrics.slice(start, start + 10));
    return groups.map((group, index) => {
      // Ids unique across the groups: the dashboard graphs every group in one widget.
      const usingMetrics = Object.fromEntries(group.map((metric, position) => [`t${index}_${position}`, metric]));
      return summed(usingMetrics, period, `DynamoDB throttle events, table and indexes (${index + 1} of ${groups.length})`);
    });
  }

  /** The age of the oldest write-back task of any workspace not yet applied, as the sweeper reads it each minute. */
  oldestOpenWriteback(period = FIVE_MINUTES): Metric {
    return this.serviceWide(requestMetricNames.oldestOpenWriteback, Stats.MAXIMUM, period);
  }

  /**
   * The canary's runs (`success`: 1 for a line priced, 0 for a failure, so a period whose maximum is 0 had no good run)
   * and their wait (`latency`, in milliseconds), one series each for the service.
   */
  canary(name: keyof typeof canaryMetricNames, statistic: string = Stats.MAXIMUM, period = FIVE_MINUTES): Metric {
    return this.serviceWide(canaryMetricNames[name], statistic, period);
  }

  /** Requests answered 429 over every route, as the handlers count them (`RateLimited`), one series for the service. */
  rateLimitedRequests(period = FIVE_MINUTES): MathExpression {
    return new MathExpression({
      expression: [
        `SELECT SUM("${requestMetricNames.rateLimited}") FROM SCHEMA("${metricsNamespace}", "route", "service")`,
        `WHERE "service" = '${serviceName}'`,
      ].join(' '),
      usingMetrics: {},
      period,
      label: 'requests answered 429',
    });
  }

  /** Every request the API's stage received, whatever its route or answer. */
  apiRequests(period = FIVE_MINUTES): Metric {
    return new Metric({
      namespace: 'AWS/ApiGateway',
      metricName: 'Count',
      dimensionsMap: { ApiId: this.service.api.apiId, Stage: this.service.stage.stageName },
      statistic: Stats.SUM,
      period,
      label: 'requests',
    });
  }

  /** Internal errors DynamoDB answered, over every operation the service calls. */
  tableSystemErrors(period = FIVE_MINUTES): MathExpression {
    const usingMetrics: Record<string, IMetric> = {};
    tableOperations.forEach((operation, index) => {
      usingMetrics[`op${index}`] = new Metric({
        namespace: 'AWS/DynamoDB',
        metricName: 'SystemErrors',
        dimensionsMap: { TableName: this.service.table.tableName, Operation: operation },
        statistic: Stats.SUM,
        period,
      });
    });
    return new MathExpression({
      expression: Object.keys(usingMetrics).join(' + '),
      usingMetrics,
      period,
      label: 'DynamoDB system errors',
    });
  }

  /**
   * What the service cost in the period at the dated list prices (shared/cost/list-prices.ts), from what AWS and the
   * handlers measured: DynamoDB request units, Lambda GB-seconds at each function's memory and its invocations, API
   * Gateway requests, and SQS requests (sends, receives, deletes and the pollers' empty receives). Storage, logs,
   * metrics and data transfer are not in it, nor the free tier (docs/cost.md).
   */
  costDollars(period = Duration.hours(1)): MathExpression {
    const reads: Record<string, IMetric> = {};
    const writes: Record<string, IMetric> = {};
    const gbSeconds: Record<string, IMetric> = {};
    const invocations: Record<string, IMetric> = {};
    const gbTerms: string[] = [];
    this.functions.forEach((fn, index) => {
      reads[`r${index}`] = this.request(fn.id, requestMetricNames.readUnits, Stats.SUM, period);
      writes[`w${index}`] = this.request(fn.id, requestMetricNames.writeUnits, Stats.SUM, period);
      gbSeconds[`d${index}`] = this.lambda(fn, 'Duration', Stats.SUM, period);
      invocations[`n${index}`] = this.lambda(fn, 'Invocations', Stats.SUM, period);
      // Duration is in milliseconds; a GB-second is a second at 1,024 MB.
      gbTerms.push(`FILL(d${index}, 0) * ${fn.memoryMb} / 1024000`);
    });
    const queueRequests: Record<string, IMetric> = {};
    let queueIndex = 0;
    for (const serviceQueue of this.service.queues.values()) {
      for (const queue of [serviceQueue.queue, serviceQueue.deadLetterQueue]) {
        for (const metricName of ['NumberOfMessagesSent', 'NumberOfMessagesReceived', 'NumberOfMessagesDeleted', 'NumberOfEmptyReceives']) {
          queueRequests[`q${queueIndex++}`] = queue.metric(metricName, { statistic: Stats.SUM, period });
        }
      }
    }
    const expression = (text: string, usingMetrics: Record<string, IMetric>, label: string) =>
      new MathExpression({ expression: text, usingMetrics, period, label });
    return expression(
      [
        // Per-million prices are divided in the expression, so that every number in it stays a plain decimal.
        `rru * ${listPrices.dynamoDbReadRequestUnitPerMillion} / 1000000`,
        `wru * ${listPrices.dynamoDbWriteRequestUnitPerMillion} / 1000000`,
        `gbs * ${listPrices.lambdaArmGbSecond}`,
        `inv * ${listPrices.lambdaRequestPerMillion} / 1000000`,
        `FILL(api, 0) * ${listPrices.httpApiRequestPerMillion} / 1000000`,
        `sqs * ${listPrices.sqsRequestPerMillion} / 1000000`,
      ].join(' + '),
      {
        rru: expression(sumOfFilled(reads), reads, 'read request units'),
        wru: expression(sumOfFilled(writes), writes, 'write request units'),
        gbs: expression(gbTerms.join(' + '), gbSeconds, 'Lambda GB-seconds'),
        inv: expression(sumOfFilled(invocations), invocations, 'Lambda invocations'),
        api: this.service.stage.metricCount({ statistic: Stats.SUM, period }),
        sqs: expression(sumOfFilled(queueRequests), queueRequests, 'SQS requests'),
      },
      'US$ at list prices',
    );
  }

  pricedLines(period = Duration.hours(1)): Metric {
    return this.request(pricingRouteId, requestMetricNames.pricedLines, Stats.SUM, period).with({ label: 'priced lines' });
  }

  /** The period's whole cost, every route and job, over the lines it priced, per million lines. */
  dollarsPerMillionLines(period = Duration.hours(1)): MathExpression {
    return new MathExpression({
      expression: 'IF(lines > 0, 1000000 * dollars / lines, 0)',
      usingMetrics: { dollars: this.costDollars(period), lines: this.pricedLines(period) },
      period,
      label: 'US$ per 1M priced lines',
    });
  }
}
