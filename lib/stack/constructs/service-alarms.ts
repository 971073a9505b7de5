// The alarms an infra team subscribes to, each with its severity on its own SNS topic (pages, tickets): a fixed few, each over every route, function or queue at once, so that a route added adds no alarm.
import { Duration, Tags } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { OVER_BUDGET_SHARE } from '#edge/latency-budgets.ts';
import type { QueueId } from '#platform/queues.ts';
import { constructId } from './construct-id.ts';
import { canaryEveryMinutes } from './price-canary.ts';
import type { MonitoredFunction } from './monitored.ts';
import type { ServiceMetrics } from './service-metrics.ts';

/** The thresholds, with their reasons in docs/operations.md. */
export const alarmThresholds = {
  /** Share of a route's requests answered 5xx, in 3 of 5 one-minute periods. */
  routeServerErrorShare: 0.05,
  /** Share of a route's requests slower than its budget, in 3 five-minute periods running: its p99 is over budget. */
  routeOverBudgetShare: OVER_BUDGET_SHARE,
  /** Seconds a queue's oldest message may wait: past it a job is failing again and again or the workers cannot keep up. */
  oldestMessageSeconds: {
    drain: 900,
    // An attempt waiting for its retry is re-sent with at most 15 minutes' delay: twice that is no longer a wait.
    webhooks: 1_800,
  } satisfies Record<QueueId, number>,
  /** Seconds from a batch's commit to its bands recomputed: past it prices lag their data. */
  bandsLagSeconds: 1_800,
  /**
   * Seconds a batch may stay committed and not drained: past it a workspace is held up. The sweeper puts a batch whose
   * message was lost back on the queue after 15 minutes unseen; a batch still waiting 30 minutes after its commit is
   * one that did not help, or a backlog the drain cannot keep up with.
   */
  undrainedBatchSeconds: 1_800,
  /** Minutes within which a scheduled job must run at least once: three of its intervals, and never under five. */
  scheduleMinutes: (everyMinutes: number) => Math.max(5, 3 * everyMinutes),
  /** Requests answered 429 (a workspace's rate or quota) in five minutes, over every route: callers held back in volume. */
  rateLimitedRequests: 100,
  /** Hours without one request to the API: nothing reaches it (DNS, a certificate, a caller's outage) or nobody calls. */
  noTrafficHours: 6,
  /**
   * Seconds a write-back task may stay open (pending or leased, not yet applied or failed): past it an approved price
   * has not reached an ERP for an hour, a connector's worker is down, or its command hangs past its leases.
   */
  openWritebackSeconds: 3_600,
  /** Runs of the canary, one each period of its metric (5 minutes), that fail (or do not happen) in a row: one or two are a blip, three are not. */
  canaryFailedRuns: 3,
} as const;

/**
 * Who is woken. A page is something callers feel now (the API failing or slow, batches not draining, write-backs not
 * reaching ERPs, webhooks failing for everyone); a ticket is something to look at in working hours (one customer's
 * endpoint, callers held to their limits, a single error that a retry absorbed, a warning of capacity).
 */
export type Severity = 'page' | 'ticket';

/** What an alarm's math may read at most; a longer list of functions is split over several alarms. */
const METRICS_PER_ALARM = 10;

export interface ServiceAlarmsProps {
  readonly metrics: ServiceMetrics;
  /** Whether the stack runs the canary (constructs/price-canary.ts), whose runs are alarmed on. */
  readonly canary?: boolean;
}

interface AlarmOptions {
  readonly severity: Severity;
  readonly threshold: number;
  readonly description: string;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
  readonly comparisonOperator?: ComparisonOperator;
  /** No traffic, or no message, is not a failure; a schedule that stops firing is, and says so by its silence. */
  readonly treatMissingData?: TreatMissingData;
}

export class ServiceAlarms extends Construct {
  /** Where the alarms that page are sent, and their recoveries; the stack outputs its ARN as `AlarmTopicArn`. */
  readonly topic: Topic;
  /** Where the alarms for a ticket are sent; the stack outputs its ARN as `TicketTopicArn`. */
  readonly ticketTopic: Topic;
  readonly alarms: Alarm[] = [];
  /** Each alarm's severity, by its construct id. */
  readonly severities = new Map<string, Severity>();
  private readonly actions: Record<Severity, SnsAction>;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { metrics } = props;

    // enforceSSL keeps publishing and subscribing on TLS; AWS-managed encryption would stop CloudWatch publishing.
    // The paging topic keeps the id and output the single topic had, so that its subscriptions survive the upgrade.
    this.topic = new Topic(this, 'Topic', { displayName: 'Pricing service alarms that page', enforceSSL: true });
    this.ticketTopic = new Topic(this, 'TicketTopic', { displayName: 'Pricing service alarms for a ticket', enforceSSL: true });
    this.actions = { page: new SnsAction(this.topic), ticket: new SnsAction(this.ticketTopic) };

    this.callerAlarms(metrics);
    if (props.canary) this.canaryAlarm(metrics);
    this.functionAlarms(metrics);
    this.queueAlarms(metrics);
    this.tableAlarms(metrics);
  }

  /** What callers of the API see: failures, slowness, being held to their limits, and no traffic at all. */
  private callerAlarms(metrics: ServiceMetrics): void {
    this.alarm('RouteServerErrors', metrics.routeServerErrorShare(), {
      severity: 'page',
      threshold: alarmThresholds.routeServerErrorShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      description: `A route answers 5xx to more than ${alarmThresholds.routeServerErrorShare * 100}% of its requests; the alarm names it.`,
    });
    this.alarm('RouteLatencyOverBudget', metrics.routeOverLatencyBudgetShare(), {
      severity: 'page',
      threshold: alarmThresholds.routeOverBudgetShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      description: 'A route’s p99 latency is over its budget (shared/edge/latency-budgets.ts) for 15 minutes; the alarm names it.',
    });
    this.alarm('CallersRateLimited', metrics.rateLimitedRequests(), {
      severity: 'ticket',
      threshold: alarmThresholds.rateLimitedRequests,
      description: `${alarmThresholds.rateLimitedRequests} or more requests were answered 429 in 5 minutes: callers are held to a workspace's rate or monthly quota.`,
    });
    this.alarm('ApiNoTraffic', metrics.apiRequests(Duration.hours(alarmThresholds.noTrafficHours)), {
      severity: 'ticket',
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
      description: `The API received no request in ${alarmThresholds.noTrafficHours} hours.`,
    });
  }

  /**
   * The canary prices one line through the public API every few minutes: three periods running without one good run is
   * the API failing an ERP's call from outside, or the canary not running at all, which is as blind.
   */
  private canaryAlarm(metrics: ServiceMetrics): void {
    this.alarm('PriceCanaryFailing', metrics.canary('success'), {
      severity: 'page',
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      evaluationPeriods: alarmThresholds.canaryFailedRuns,
      treatMissingData: TreatMissingData.BREACHING,
      description: `The canary has not priced its line through the public API in ${alarmThresholds.canaryFailedRuns} runs (${alarmThresholds.canaryFailedRuns * canaryEveryMinutes} minutes), or has not run.`,
    });
  }

  /** Workers and jobs, which have no caller to see them fail; route functions fail as the route alarms above. */
  private functionAlarms(metrics: ServiceMetrics): void {
    const background = metrics.functions.filter((fn) => fn.kind !== 'http');
    this.inGroups(background, METRICS_PER_ALARM / 2).forEach((group, index) => {
      this.alarm(`WorkerErrors${index === 0 ? '' : index + 1}`, metrics.workerErrors(group), {
        severity: 'ticket',
        threshold: 1,
        description: `A worker or job failed an invocation or a message (${group.map((fn) => fn.id).join(', ')}): a fault its ERROR line names, a crash, a timeout or running out of memory. A retry may have absorbed it; a job given up is in a dead-letter queue, which pages.`,
      });
    });
    this.inGroups(background).forEach((group, index) => {
      this.alarm(`WorkerThrottles${index === 0 ? '' : index + 1}`, metrics.lambdaSum(group, 'Throttles'), {
        severity: 'ticket',
        threshold: 1,
        description: `Lambda refused to run a worker or job of this service (${group.map((fn) => fn.id).join(', ')}): the concurrency it may use is spent.`,
      });
    });

    for (const job of metrics.functions.filter((fn) => fn.kind === 'job')) {
      const minutes = alarmThresholds.scheduleMinutes(job.everyMinutes ?? 1);
      this.alarm(`${constructId(job.id)}ScheduleMissed`, metrics.lambda(job, 'Invocations', Stats.SUM, Duration.minutes(minutes)), {
        severity: 'ticket',
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
        description: `The ${job.id} job did not run in ${minutes} minutes: its schedule stopped firing, or Lambda refused it.`,
      });
    }
  }

  /** Work waiting: batches that do not drain, webhooks that nobody receives, a job given up. */
  private queueAlarms(metrics: ServiceMetrics): void {
    for (const [queueId, queue] of metrics.queues) {
      this.alarm(
        `${constructId(queueId)}DeadLetters`,
        queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        {
          // A drain given up is a batch that will not become prices; a webhook message given up is one event late.
          severity: queueId === 'drain' ? 'page' : 'ticket',
          threshold: 1,
          description: `The ${queueId} dead-letter queue holds a message: a job was given up.`,
        },
      );
      const seconds = alarmThresholds.oldestMessageSeconds[queueId];
      this.alarm(
        `${constructId(queueId)}OldestMessageAge`,
        queue.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        {
          // Either queue backing up is every workspace's batches, or every endpoint's events, waiting.
          severity: 'page',
          threshold: seconds,
          description: `A message has waited ${seconds / 60} minutes or more in the ${queueId} queue.`,
        },
      );
    }

    this.alarm('BandsLag', metrics.bandsLag(Stats.MAXIMUM), {
      severity: 'page',
      threshold: alarmThresholds.bandsLagSeconds,
      description: `A batch's bands were recomputed ${alarmThresholds.bandsLagSeconds / 60} minutes or more after its commit.`,
    });
    this.alarm('OldestUndrainedBatch', metrics.oldestUndrainedBatch(), {
      severity: 'page',
      threshold: alarmThresholds.undrainedBatchSeconds,
      description: `A workspace's oldest batch not yet drained was committed ${alarmThresholds.undrainedBatchSeconds / 60} minutes ago or more: its later batches wait behind it.`,
    });
    this.alarm('WritebackTaskAge', metrics.oldestOpenWriteback(), {
      severity: 'page',
      threshold: alarmThresholds.openWritebackSeconds,
      description: `An approved price's write-back task has waited ${alarmThresholds.openWritebackSeconds / 60} minutes or more without being applied: a connector's worker is not claiming, or its command does not finish.`,
    });
    this.alarm('WebhooksParkedOrDisabled', metrics.webhookHealth(), {
      // One customer's receiver failing is theirs to fix; the queue's age pages when every endpoint waits.
      severity: 'ticket',
      threshold: 1,
      description: 'A webhook delivery was parked after its last attempt, or an endpoint was disabled after 5 days of failing.',
    });
  }

  /** The table: throttling anywhere, the indexes included, and DynamoDB's own errors. */
  private tableAlarms(metrics: ServiceMetrics): void {
    metrics.tableThrottles().forEach((throttles, index) => {
      this.alarm(`TableThrottles${index === 0 ? '' : index + 1}`, throttles, {
        severity: 'ticket',
        threshold: 1,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        description: 'DynamoDB throttled reads or writes of the table or one of its indexes in 3 of the last 5 minutes.',
      });
    });
    this.alarm('TableSystemErrors', metrics.tableSystemErrors(), {
      // The SDK retries each; callers feel them only in volume, which the route alarms page on.
      severity: 'ticket',
      threshold: 1,
      description: 'DynamoDB answered requests with internal errors (HTTP 500), which the SDK retried.',
    });
  }

  private alarm(alarmId: string, metric: IMetric, options: AlarmOptions): Alarm {
    const created = new Alarm(this, alarmId, {
      metric,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator ?? ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      datapointsToAlarm: options.datapointsToAlarm ?? options.evaluationPeriods ?? 1,
      treatMissingData: options.treatMissingData ?? TreatMissingData.NOT_BREACHING,
      alarmDescription: `[${options.severity}] ${options.description} See docs/operations.md, "Alarms".`,
    });
    const action = this.actions[options.severity];
    created.addAlarmAction(action);
    created.addOkAction(action);
    Tags.of(created).add('severity', options.severity);
    this.alarms.push(created);
    this.severities.set(alarmId, options.severity);
    return created;
  }

  private inGroups(functions: readonly MonitoredFunction[], size = METRICS_PER_ALARM): MonitoredFunction[][] {
    const groups: MonitoredFunction[][] = [];
    for (let start = 0; start < functions.length; start += size) groups.push(functions.slice(start, start + size));
    return groups;
  }
}
