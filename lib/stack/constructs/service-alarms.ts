// The alarms an infra team subscribes to, on one SNS topic: 5xx per route, Lambda errors and throttles, dead letters, the drain's backlog, and DynamoDB trouble.
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IMetric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { constructId } from './construct-id.ts';
import type { ServiceMetrics } from './service-metrics.ts';

/** The thresholds, with their reasons in docs/operations.md. */
export const alarmThresholds = {
  /** Percent of a route's requests answered 5xx, in 3 of 5 one-minute periods with at least 5 requests each. */
  route5xxPercent: 5,
  /** Seconds the drain's oldest message may wait: past it a job is failing again and again or the workers cannot keep up. */
  drainOldestMessageSeconds: 900,
} as const;

export interface ServiceAlarmsProps {
  readonly metrics: ServiceMetrics;
}

export class ServiceAlarms extends Construct {
  /** Where every alarm and its recovery is sent; the stack outputs its ARN. */
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const { metrics } = props;

    // enforceSSL keeps publishing and subscribing on TLS; AWS-managed encryption would stop CloudWatch publishing.
    this.topic = new Topic(this, 'Topic', { displayName: 'Pricing service alarms', enforceSSL: true });
    const action = new SnsAction(this.topic);

    const alarm = (
      alarmId: string,
      metric: IMetric,
      options: { threshold: number; description: string; evaluationPeriods?: number; datapointsToAlarm?: number },
    ) => {
      const created = new Alarm(this, alarmId, {
        metric,
        threshold: options.threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: options.evaluationPeriods ?? 1,
        datapointsToAlarm: options.datapointsToAlarm ?? options.evaluationPeriods ?? 1,
        // No traffic, or no message, is not a failure.
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: `${options.description} See docs/operations.md, "Alarms".`,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };

    for (const fn of metrics.routed) {
      alarm(`${constructId(fn.id)}5xxRate`, metrics.route5xxRate(fn.route), {
        threshold: alarmThresholds.route5xxPercent,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        description: `${fn.route.method} ${fn.route.path} answers 5xx to ${alarmThresholds.route5xxPercent}% or more of its requests.`,
      });
    }

    for (const fn of metrics.functions) {
      alarm(`${constructId(fn.id)}LambdaErrors`, metrics.lambda(fn, 'Errors', Stats.SUM), {
        threshold: 1,
        description: `The ${fn.id} function failed an invocation: a crash, a timeout or running out of memory.`,
      });
      alarm(`${constructId(fn.id)}LambdaThrottles`, metrics.lambda(fn, 'Throttles', Stats.SUM), {
        threshold: 1,
        description: `Lambda refused to run the ${fn.id} function: the account's concurrency is spent.`,
      });
    }

    for (const [queueId, queue] of metrics.queues) {
      alarm(
        `${constructId(queueId)}DeadLetters`,
        queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
        { threshold: 1, description: `The ${queueId} dead-letter queue holds a message: a job was given up.` },
      );
    }

    alarm(
      'DrainOldestMessageAge',
      metrics.queue('drain').queue.metricApproximateAgeOfOldestMessage({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
      {
        threshold: alarmThresholds.drainOldestMessageSeconds,
        description: `A drain or bands job has waited ${alarmThresholds.drainOldestMessageSeconds / 60} minutes or more in the drain queue.`,
      },
    );

    alarm('TableThrottles', metrics.tableThrottles(), {
      threshold: 1,
      evaluationPeriods: 5,
      datapointsToAlarm: 3,
      description: 'DynamoDB throttled reads or writes of the table in 3 of the last 5 minutes.',
    });
    alarm('TableSystemErrors', metrics.tableSystemErrors(), {
      threshold: 1,
      description: 'DynamoDB answered requests with internal errors (HTTP 500).',
    });
  }
}
