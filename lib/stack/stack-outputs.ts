// The stack's outputs: what the README and the runbooks tell an infra team to read after a deploy.
import { CfnOutput } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { QueueId } from '#platform/queues.ts';
import { constructId } from './constructs/construct-id.ts';
import type { OperatorPolicy } from './constructs/operator-policy.ts';
import type { PriceCanary } from './constructs/price-canary.ts';
import type { ServiceAlarms } from './constructs/service-alarms.ts';
import type { ServiceApi } from './constructs/service-api.ts';
import type { ServiceDashboard } from './constructs/service-dashboard.ts';
import type { ServiceQueue } from './constructs/service-queue.ts';

export interface StackOutputs {
  readonly api: ServiceApi;
  readonly table: ITable;
  readonly functionLogs: ILogGroup;
  readonly operator: OperatorPolicy;
  readonly alarms: ServiceAlarms;
  readonly dashboard: ServiceDashboard;
  readonly webhookDataKeySecret: ISecret;
  readonly queues: ReadonlyMap<QueueId, ServiceQueue>;
  readonly canary?: PriceCanary | undefined;
}

export function addStackOutputs(stack: Construct, outputs: StackOutputs): void {
  const { api, table, functionLogs, operator, alarms, dashboard, webhookDataKeySecret, canary } = outputs;
  new CfnOutput(stack, 'ApiUrl', { value: api.url, description: 'Base URL of the HTTP API' });
  new CfnOutput(stack, 'TableName', { value: table.tableName, description: 'The service table' });
  new CfnOutput(stack, 'FunctionLogGroup', { value: functionLogs.logGroupName, description: 'The log group every function writes to' });
  new CfnOutput(stack, 'OperatorPolicyArn', {
    value: operator.policy.managedPolicyArn,
    description: 'Managed policy to attach to whoever runs the admin CLI with --aws against this stack',
  });
  new CfnOutput(stack, 'AccessLogGroup', {
    value: api.accessLogGroup.logGroupName,
    description: 'The API access log: each request’s caller address, status and the Lambda request id its function logged',
  });
  new CfnOutput(stack, 'AlarmTopicArn', {
    value: alarms.topic.topicArn,
    description: 'SNS topic of the alarms that page: subscribe the on-call of the team that runs the service',
  });
  new CfnOutput(stack, 'TicketTopicArn', {
    value: alarms.ticketTopic.topicArn,
    description: 'SNS topic of the alarms for a ticket: subscribe the team’s queue of work for working hours',
  });
  new CfnOutput(stack, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard' });
  new CfnOutput(stack, 'WebhookDataKeySecretArn', {
    value: webhookDataKeySecret.secretArn,
    description: 'The secret the admin CLI reads (with --aws) to seal webhook signing secrets',
  });
  if (canary) {
    new CfnOutput(stack, 'CanaryKeySecret', {
      value: canary.keySecretId,
      description: 'The secret the canary reads its erp key from: put the key in it (docs/operations.md, PriceCanaryFailing)',
    });
  }
  for (const [queueId, serviceQueue] of outputs.queues) {
    new CfnOutput(stack, `${constructId(queueId)}QueueUrl`, {
      value: serviceQueue.queue.queueUrl,
      description: `URL of the ${queueId} queue`,
    });
  }
}
