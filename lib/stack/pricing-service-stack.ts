// The pricing service stack: table, queues, HTTP API and functions, all derived from the shared definitions.
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { environmentNames } from '#platform/config.ts';
import { type QueueId, queues } from '#platform/queues.ts';
import {
  type FallbackRoute,
  type ConsoleRoute,
  consoleRoutes,
  fallbackRoute,
  type HttpRoute,
  type QueueWorker,
  type RouteAccess,
  routes,
  type ScheduledJob,
  scheduledJobs,
  workers,
} from '#edge/routes.ts';
import { table as tableDefinition } from '#platform/table/definition.ts';
import { dataKeySecretIdEnvironmentName } from '#shared/webhooks/secrets.ts';
import { constructId } from './constructs/construct-id.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { ServiceDashboard } from './constructs/service-dashboard.ts';
import { logRetention, ServiceFunction } from './constructs/service-function.ts';
import { type MonitoredFunction, ServiceMetrics } from './constructs/service-metrics.ts';
import { ServiceQueue } from './constructs/service-queue.ts';
import { ServiceTable } from './constructs/service-table.ts';

/** Context key read by the stack: `cdk synth -c stage=dev`. */
export const stageContextKey = 'stage';

/** Each stage is a stack of its own, so that a dev stack and a production stack can share an account and region. */
export function stackNameFor(stage: unknown): string {
  return typeof stage === 'string' && stage !== '' ? `PricingService-${stage}` : 'PricingService';
}

/** The one stage whose data may be thrown away with the stack; every other value, or none, is treated as production. */
export const disposableStage = 'dev';

/** Which variable carries a queue's URL; typed per QueueId so a new queue cannot be added without naming one. */
const queueUrlEnvironmentNames: Readonly<Record<QueueId, string>> = {
  drain: environmentNames.drainQueueUrl,
  webhooks: environmentNames.webhooksQueueUrl,
};
const deadLetterUrlEnvironmentNames: Readonly<Record<QueueId, string>> = {
  drain: environmentNames.drainDeadLetterQueueUrl,
  webhooks: environmentNames.webhooksDeadLetterQueueUrl,
};

export interface PricingServiceStackProps extends StackProps {
  /** Defaults to the shared route table; tests pass their own rows to cover shapes the table does not have yet. */
  readonly routes?: readonly HttpRoute[];
  readonly consoleRoutes?: readonly ConsoleRoute[];
  readonly fallbackRoute?: FallbackRoute;
  readonly workers?: readonly QueueWorker[];
  readonly scheduledJobs?: readonly ScheduledJob[];
}

export class PricingServiceStack extends Stack {
  readonly table: Table;
  readonly queues: ReadonlyMap<QueueId, ServiceQueue>;
  /** Every function of the stack, by the id of its row in the route table (routes, fallback and workers). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Every alarm is sent here; the stack outputs its ARN for the infra team to subscribe to. */
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: PricingServiceStackProps = {}) {
    super(scope, id, props);

    const disposable = this.node.tryGetContext(stageContextKey) === disposableStage;
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const { table } = new ServiceTable(this, 'Data', {
      definition: tableDefinition,
      deletionProtection: !disposable,
      removalPolicy,
    });
    this.table = table;
    // The finding cdk-nag reports for the GSI wildcard that every table grant carries, e.g. <DataTable1234.Arn>/index/*.
    const tableLogicalId = this.resolve((table.node.defaultChild as CfnTable).logicalId) as string;
    const tableIndexWildcard = `AwsSolutions-IAM5[Resource::<${tableLogicalId}.Arn>/index/*]`;

    const serviceQueues = new Map<QueueId, ServiceQueue>();
    for (const definition of Object.values(queues)) {
      serviceQueues.set(definition.id, new ServiceQueue(this, `${constructId(definition.id)}Queue`, { definition }));
    }
    this.queues = serviceQueues;
    const queueFor = (queueId: QueueId): ServiceQueue => {
      const queue = serviceQueues.get(queueId);
      if (!queue) throw new Error(`no queue ${queueId} in shared/platform/queues.ts`);
      return queue;
    };

    // The data key that seals webhook signing secrets at rest: random text the stack generates, read by the functions
    // that mint or sign with secrets, once per cold start. Kept with the table: without it the stored secrets are lost.
    const webhookDataKey = new Secret(this, 'WebhookDataKey', {
      description: 'Key material for sealing webhook signing secrets (AES-256-GCM); never rotate without re-sealing them.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(webhookDataKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the data key would strand every sealed signing secret; the secrets themselves rotate per endpoint.',
    });

    // One log group for every function, whatever the number of routes: each stream is named after its function.
    const functionLogs = new LogGroup(this, 'FunctionLogs', { retention: logRetention, removalPolicy });

    /** Turns a row's `access` into environment and grants; nothing else is granted, so the row is the whole policy. */
    const serviceFunctions = new Map<string, ServiceFunction>();
    this.functions = serviceFunctions;
    const createFunction = (
      id: string,
      row: { id: string; entry: string; memoryMb: number; access: RouteAccess; files?: HttpRoute['files'] },
      timeoutSeconds: number,
    ): ServiceFunction => {
      const environment: Record<string, string> = {};
      if (row.access.table) environment[environmentNames.tableName] = table.tableName;
      for (const queueId of row.access.sendTo ?? []) {
        environment[queueUrlEnvironmentNames[queueId]] = queueFor(queueId).queue.queueUrl;
      }
      for (const queueId of row.access.sendToDeadLetter ?? []) {
        environment[deadLetterUrlEnvironmentNames[queueId]] = queueFor(queueId).deadLetterQueue.queueUrl;
      }

      if (row.access.webhookSecrets) environment[dataKeySecretIdEnvironmentName] = webhookDataKey.secretArn;

      const fn = new ServiceFunction(this, id, {
        entry: row.entry,
        memoryMb: row.memoryMb,
        timeoutSeconds,
        environment,
        logGroup: functionLogs,
        files: row.files,
      });

      if (row.access.table === 'read') table.grantReadData(fn.function);
      if (row.access.table === 'readWrite') table.grantReadWriteData(fn.function);
      if (row.access.tableStatements) table.grant(fn.function, 'dynamodb:PartiQLUpdate');
      if (row.access.table) {
        Validations.of(fn.role).acknowledge({
          id: tableIndexWildcard,
          reason: 'Queries go through the table GSIs; the wildcard covers the indexes of this one table and nothing else.',
        });
      }
      if (row.access.webhookSecrets) webhookDataKey.grantRead(fn.function);
      for (const queueId of row.access.sendTo ?? []) queueFor(queueId).queue.grantSendMessages(fn.function);
      for (const queueId of row.access.sendToDeadLetter ?? []) queueFor(queueId).deadLetterQueue.grantSendMessages(fn.function);
      serviceFunctions.set(row.id, fn);
      return fn;
    };

    /** What the dashboard and the alarms watch: every function, with the route it serves. */
    const monitored: MonitoredFunction[] = [];

    const fallback = props.fallbackRoute ?? fallbackRoute;
    const fallbackFunction = createFunction(`${constructId(fallback.id)}Function`, fallback, fallback.timeoutSeconds);
    const api = new ServiceApi(this, 'Api', { fallbackFunction: fallbackFunction.function, removalPolicy });
    monitored.push({ id: fallback.id, memoryMb: fallback.memoryMb, function: fallbackFunction.function, kind: 'http' });

    for (const route of props.routes ?? routes) {
      const fn = createFunction(`${constructId(route.id)}Function`, route, route.timeoutSeconds);
      api.addRoute(route, fn.function);
      monitored.push({ id: route.id, memoryMb: route.memoryMb, function: fn.function, route, kind: 'http' });
    }

    // The console's routes: functions of their own, so that the API's functions carry none of the console's code.
    for (const route of props.consoleRoutes ?? consoleRoutes) {
      const fn = createFunction(`${constructId(route.id)}Function`, route, route.timeoutSeconds);
      api.addRoute(route, fn.function);
      monitored.push({ id: route.id, memoryMb: route.memoryMb, function: fn.function, route, kind: 'http' });
    }

    for (const worker of props.workers ?? workers) {
      const source = queueFor(worker.queue);
      // The queue's visibility timeout is derived from this same number, which keeps it at six times the timeout.
      const fn = createFunction(`${constructId(worker.id)}Worker`, worker, queues[worker.queue].consumerTimeoutSeconds);
      fn.function.addEventSource(
        new SqsEventSource(source.queue, {
          batchSize: worker.batchSize,
          maxConcurrency: worker.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
      monitored.push({ id: worker.id, memoryMb: worker.memoryMb, function: fn.function, kind: 'worker' });
    }

    for (const job of props.scheduledJobs ?? scheduledJobs) {
      const fn = createFunction(`${constructId(job.id)}Job`, job, job.timeoutSeconds);
      new Rule(this, `${constructId(job.id)}Schedule`, {
        schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
      });
      monitored.push({ id: job.id, memoryMb: job.memoryMb, function: fn.function, kind: 'job', everyMinutes: job.everyMinutes });
    }

    const metrics = new ServiceMetrics({ functions: monitored, api: api.api, stage: api.stage, queues: serviceQueues, table });
    const dashboard = new ServiceDashboard(this, 'Operations', { metrics });
    this.alarms = new ServiceAlarms(this, 'Alarms', { metrics });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The service table' });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic every alarm is sent to: subscribe the team that runs the service',
    });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard' });
    new CfnOutput(this, 'WebhookDataKeySecretArn', {
      value: webhookDataKey.secretArn,
      description: 'The secret the admin CLI reads (with --aws) to seal webhook signing secrets',
    });
    for (const [queueId, serviceQueue] of serviceQueues) {
      new CfnOutput(this, `${constructId(queueId)}QueueUrl`, {
        value: serviceQueue.queue.queueUrl,
        description: `URL of the ${queueId} queue`,
      });
    }
  }
}
