// The alarms an infra team subscribes to, on one SNS topic: a fixed few, each over every route, function or queue at once, so that a route added adds no alarm.
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { OVER_BUDGET_SHARE } from '#edge/latency-budgets.ts';
import type { QueueId } from '#platform/queues.ts';
import { constructId } from './construct-id.ts';
import type { MonitoredFunction, ServiceMetrics } from './service-metrics.ts';

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
} as const;

/** What an alarm's math may read at most; a longer list of functions is split over several alarms. */
const METRICS_PER_ALARM = 10;

export interface ServiceAlarmsProps {
  readonly metrics: ServiceMetrics;
}

interface AlarmOptions {
  readonly threshold: number;
  readonly description: string;
  readonly evaluationPeriods?: number;
  readonly datapointsToAlarm?: number;
  readonly comparisonOperator?: ComparisonOperator;
  /** No traffic, or no message, is not a failure; a schedule that stops firing is, and says so by its silence. */
  readonly treatMissingData?: TreatMissingData;
}

export class ServiceAlarms extends Construct {
  /** Where every alarm and its recovery is sent; the stack outputs its ARN. */
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { metrics } = props;

    // enforceSSL keeps publishing and subscribing on TLS; AWS-managed encryption would stop CloudWatch publishing.
    this.topic = new Topic(this, 'Topic', { displayName: 'Pricing service alarms', enforceSSL: true });
    this.action = new SnsAction(this.topic);

    this.alarm('RouteServerErrors', metrics.routeServerErrorShare(), {
      threshold: alarmThresholds.routeServerErrorShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      description: `A route answers 5xx to more than ${alarmThresholds.routeServerErrorShare * 100}% of its requests; the alarm names it.`,
    });
    this.alarm('RouteLatencyOverBudget', metrics.routeOverLatencyBudgetShare(), {
      threshold: alarmThresholds.routeOverBudgetShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      description: 'A route’s p99 latency is over its budget (shared/edge/latency-budgets.ts) for 15 minutes; the alarm names it.',
    });

    // Route functions fail as 5xx above; workers and jobs have no caller to see it.
    const background = metrics.functions.filter((fn) => fn.kind !== 'http');
    this.inGroups(background, METRICS_PER_ALARM / 2).forEach((group, index) => {
      this.alarm(`WorkerErrors${index === 0 ? '' : index + 1}`, metrics.workerErrors(group), {
        threshold: 1,
        description: `A worker or job failed an invocation or a message (${group.map((fn) => fn.id).join(', ')}): a fault its ERROR line names, a crash, a timeout or running out of memory.`,
      });
    });
    this.alarm('LambdaThrottles', metrics.accountLambdaThrottles(), {
      threshold: 1,
      description: 'Lambda refused to run a function in this account and region: the concurrency the service shares is spent.',
    });

    for (const job of metrics.functions.filter((fn) => fn.kind === 'job')) {
      const minutes = alarmThresholds.scheduleMinutes(job.everyMinutes ?? 1);
      this.alarm(`${constructId(job.id)}ScheduleMissed`, metrics.lambda(job, 'Invocations', Stats.SUM, Duration.minutes(minutes)), {
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.BREACHING,
        description: `The ${job.id} job did not run in ${minutes} minutes: its schedule stopped firing, or Lambda refused it.`,
      });
    }

    for (const [queueId, queue] of metrics.queues) {
      this.alarm(
        `${constructId(queueId)}DeadLetters`,
        queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        { threshold: 1, description: `The ${queueId} dead-letter queue holds a message: a job was given up.` },
      );
      const seconds = alarmThresholds.oldestMessageSeconds[queueId];
      this.alarm(
        `${constructId(queueId)}OldestMessageAge`,
        queue.queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        { threshold: seconds, description: `A message has waited ${seconds / 60} minutes or more in the ${queueId} queue.` },
      );
    }

    this.alarm('BandsLag', metrics.bandsLag(Stats.MAXIMUM), {
      threshold: alarmThresholds.bandsLagSeconds,
      description: `A batch's bands were recomputed ${alarmThresholds.bandsLagSeconds / 60} minutes or more after its commit.`,
    });
    this.alarm('OldestUndrainedBatch', metrics.oldestUndrainedBatch(), {
      threshold: alarmThresholds.undrainedBatchSeconds,
      description: `A workspace's oldest batch not yet drained was committed ${alarmThresholds.undrainedBatchSeconds / 60} minutes ago or more: its later batches wait behind it.`,
    });
    this.alarm('WebhooksParkedOrDisabled', metrics.webhookHealth(), {
      threshold: 1,
      description: 'A webhook delivery was parked after its last attempt, or an endpoint was disabled after 5 days of failing.',
    });

    this.alarm('TableThrottles', metrics.tableThrottles(), {
      threshold: 1,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      description: 'DynamoDB throttled reads or writes of the table in 3 of the last 5 minutes.',
    });
    this.alarm('TableSystemErrors', metrics.tableSystemErrors(), {
      threshold: 1,
      description: 'DynamoDB answered requests with internal errors (HTTP 500).',
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
      alarmDescription: `${options.description} See docs/operations.md, "Alarms".`,
    });
    created.addAlarmAction(this.action);
    created.addOkAction(this.action);
    this.alarms.push(created);
    return created;
  }

  private inGroups(functions: readonly MonitoredFunction[], size = METRICS_PER_ALARM): MonitoredFunction[][] {
    const groups: MonitoredFunction[][] = [];
    for (let start = 0; start < functions.length; start += size) groups.push(functions.slice(start, start + size));
    return groups;
  }
}
