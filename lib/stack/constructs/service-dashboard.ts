// The operations dashboard: per route traffic, errors, latency and capacity per request; cost per priced line; the queues, the bands job's lag, what the alarms read, and the canary's runs.
import { Duration } from 'aws-cdk-lib';
import { Dashboard, GraphWidget, type IWidget, Stats, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { LIST_PRICES_AS_OF, LIST_PRICES_REGION } from '#shared/cost/list-prices.ts';
import { requestMetricNames } from '#platform/observability.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export interface ServiceDashboardProps {
  readonly metrics: ServiceMetrics;
  /** Whether the stack runs the canary, whose runs and waits get a row of their own. */
  readonly canary?: boolean;
}

const WIDTH = 24;
const HALF = 12;
const THIRD = 8;

/** What the dashboard shows, and what its cost leaves out. */
function titleRow(): IWidget[] {
  return [
    new TextWidget({
      markdown: [
        '# Pricing service',
        'Per route: requests, errors and latency as API Gateway saw them; capacity units per request as each handler counted them.',
        `Cost at the list prices of ${LIST_PRICES_REGION} as of ${LIST_PRICES_AS_OF}: DynamoDB, Lambda, API Gateway and SQS requests; no storage, logs, metrics, data transfer or free tier. docs/operations.md explains each alarm.`,
      ].join('\n\n'),
      width: WIDTH,
      height: 3,
    }),
  ];
}

/** Requests and errors per route, as API Gateway saw them. */
function trafficRow(metrics: ServiceMetrics): IWidget[] {
  const routed = metrics.routed;
  return [
    new GraphWidget({
      title: 'Requests per route',
      left: routed.map((fn) => metrics.route(fn.route, 'Count', Stats.SUM)),
      width: HALF,
      stacked: true,
    }),
    new GraphWidget({
      title: 'Errors per route (5xx left, 4xx right)',
      left: routed.map((fn) => metrics.route(fn.route, '5xx', Stats.SUM)),
      right: routed.map((fn) => metrics.route(fn.route, '4xx', Stats.SUM)),
      width: HALF,
    }),
  ];
}

/** Latency per route, at the median and the tail. */
function latencyRow(metrics: ServiceMetrics): IWidget[] {
  const routed = metrics.routed;
  return [
    new GraphWidget({
      title: 'Latency p50 per route (ms)',
      left: routed.map((fn) => metrics.route(fn.route, 'Latency', Stats.p(50))),
      width: HALF,
    }),
    new GraphWidget({
      title: 'Latency p99 per route (ms)',
      left: routed.map((fn) => metrics.route(fn.route, 'Latency', Stats.p(99))),
      width: HALF,
    }),
  ];
}

/** Capacity units per request, as each handler counted them: the Average of a per-request metric is its mean. */
function capacityRow(metrics: ServiceMetrics): IWidget[] {
  const perRequest = (metricName: string) => metrics.functions.map((fn) => metrics.request(fn.id, metricName, Stats.AVERAGE));
  return [
    new GraphWidget({
      title: 'Read request units per request',
      left: perRequest(requestMetricNames.readUnits),
      width: HALF,
    }),
    new GraphWidget({
      title: 'Write request units per request',
      left: perRequest(requestMetricNames.writeUnits),
      width: HALF,
    }),
  ];
}

/** Lines priced, what the hour cost at list prices, and the cost per million lines. */
function costRow(metrics: ServiceMetrics): IWidget[] {
  return [
    new GraphWidget({
      title: 'Priced lines per hour',
      left: [metrics.pricedLines()],
      width: THIRD,
      period: Duration.hours(1),
    }),
    new GraphWidget({
      title: 'US$ per hour, at list prices',
      left: [metrics.costDollars()],
      width: THIRD,
      period: Duration.hours(1),
    }),
    new GraphWidget({
      title: 'US$ per 1M priced lines',
      left: [metrics.dollarsPerMillionLines()],
      width: THIRD,
      period: Duration.hours(1),
    }),
  ];
}

/** Each queue and its dead-letter queue, and the bands job's lag. */
function queueRow(metrics: ServiceMetrics): IWidget[] {
  return [
    ...[...metrics.queues].flatMap(([queueId, queue]) => [
      new GraphWidget({
        title: `${queueId} queue: messages waiting (left), age of the oldest in seconds (right)`,
        left: [queue.queue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) })],
        right: [queue.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) })],
        width: THIRD,
      }),
      new GraphWidget({
        title: `${queueId} dead-letter queue: messages`,
        left: [queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(1) })],
        width: THIRD,
      }),
    ]),
    new GraphWidget({
      title: 'Bands job lag: seconds from commit to bands done',
      left: [metrics.bandsLag(Stats.p(50)).with({ label: 'p50' }), metrics.bandsLag(Stats.MAXIMUM).with({ label: 'max' })],
      width: THIRD,
    }),
  ];
}

/** What the route alarms and the webhook alarm read, as they read it. */
function alarmSharesRow(metrics: ServiceMetrics): IWidget[] {
  return [
    new GraphWidget({
      title: 'Share of 5xx answers per route (alarm above 0.05)',
      left: [metrics.routeServerErrorShare(Duration.minutes(5))],
      width: THIRD,
    }),
    new GraphWidget({
      title: 'Share of requests over their latency budget per route (alarm above 0.01)',
      left: [metrics.routeOverLatencyBudgetShare()],
      width: THIRD,
    }),
    new GraphWidget({
      title: 'Webhook deliveries parked and endpoints disabled',
      left: [metrics.webhookHealth()],
      width: THIRD,
    }),
  ];
}

/** Lambda errors and throttles per function, and the table's throttles and system errors. */
function failuresRow(metrics: ServiceMetrics): IWidget[] {
  return [
    new GraphWidget({
      title: 'Lambda errors per function',
      left: metrics.functions.map((fn) => metrics.lambda(fn, 'Errors', Stats.SUM)),
      width: THIRD,
    }),
    new GraphWidget({
      title: 'Lambda throttles per function',
      left: metrics.functions.map((fn) => metrics.lambda(fn, 'Throttles', Stats.SUM)),
      width: THIRD,
    }),
    new GraphWidget({
      title: 'DynamoDB throttle events and system errors',
      left: [...metrics.tableThrottles(Duration.minutes(5)), metrics.tableSystemErrors()],
      width: THIRD,
    }),
  ];
}

/** What a caller on the internet saw of one price call every 5 minutes: the alarm's series, and how long it waited. */
function canaryRow(metrics: ServiceMetrics): IWidget[] {
  return [
    new GraphWidget({ title: 'Canary: a line priced (1) or not (0)', left: [metrics.canary('success')], width: HALF }),
    new GraphWidget({
      title: 'Canary: wait for the price (ms, p50 and max)',
      left: [metrics.canary('latency', Stats.p(50)), metrics.canary('latency', Stats.MAXIMUM)],
      width: HALF,
    }),
  ];
}

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { metrics } = props;
    const widgets: IWidget[][] = [
      titleRow(),
      trafficRow(metrics),
      latencyRow(metrics),
      capacityRow(metrics),
      costRow(metrics),
      queueRow(metrics),
      alarmSharesRow(metrics),
      failuresRow(metrics),
      ...(props.canary ? [canaryRow(metrics)] : []),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', { widgets, defaultInterval: Duration.hours(24) });
  }
}
