// The pricing service stack: table, queues, HTTP API and functions, all derived from the shared definitions.
import { Annotations, CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { environmentNames, serviceName } from '#platform/config.ts';
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
import { type AccessPattern, accessPatterns } from '#platform/table/access-patterns.ts';
import { dataKeySecretIdEnvironmentName } from '#shared/webhooks/secrets.ts';
import { constructId } from './constructs/construct-id.ts';
import { customerManagedKey, kmsKeyContextKey } from './constructs/customer-managed-key.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { webhookDataKey, webhookDataKeyContextKey } from './constructs/webhook-data-key.ts';
import { OperatorPolicy } from './constructs/operator-policy.ts';
import { canaryChoice, canaryId, PriceCanary } from './constructs/price-canary.ts';
import { recordedTableNames, unrecordedTableWarning } from './table-cut-over.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { ServiceDashboard } from './constructs/service-dashboard.ts';
import { logRetention, ServiceFunction } from './constructs/service-function.ts';
import { type MonitoredFunction, ServiceMetrics } from './constructs/service-metrics.ts';
import { ServiceQueue } from './constructs/service-queue.ts';
import { ServiceRoles } from './constructs/service-roles.ts';
import { existingTableContextKey, serviceTableOrExisting } from './constructs/service-table.ts';
import { tableAccessOf, type TableCaller } from './table-access.ts';

/** Context key read by the stack: `cdk synth -c stage=dev`. */
export const stageContextKey = 'stage';

/** Each stage is a stack of its own, so that a dev stack and a production stack can share an account and region. */
export function stackNameFor(stage: unknown): string {
  return typeof stage === 'string' && stage !== '' ? `PricingService-${stage}` : 'PricingService';
}

/** The one stage whose data may be thrown away with the stack; every other value, or none, is treated as production. */
export const disposableStage = 'dev';

/** The `stage` tag of a stack given no stage. */
export const defaultStage = 'production';

export { kmsKeyContextKey } from './constructs/customer-managed-key.ts';

export { existingTableContextKey } from './constructs/service-table.ts';

/** Resource types the stack leaves untagged: CloudFormation refuses tags on them. */
export const untaggedResourceTypes = ['AWS::CloudWatch::Dashboard'];

/** The cost-allocation tags: every resource carries the first two, every function and its log group one of the others. */
export const costTags = { service: 'service', stage: 'stage', route: 'route', worker: 'worker' } as const;

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
  /** Defaults to the access-pattern catalogue; tests add patterns for the rows they add. */
  readonly accessPatterns?: readonly AccessPattern[];
  /** The `stage` tag; defaults to the `stage` context value, then to `production`. */
  readonly stage?: string;
  /**
   * A customer-managed KMS key for the table, the queues, the webhook data key and the log groups: `'new'` for a key
   * the stack makes, or an existing key's ARN. Defaults to the `kmsKey` context value; without either, each service
   * encrypts with its own AWS-owned or AWS-managed key (docs/operations.md, "Encryption").
   */
  readonly kmsKey?: string;
  /**
   * An existing table to use instead of the stack's own: the functions, grants, alarms and dashboard name it, and the
   * stack's `Data` table leaves the template (kept by its Retain policy). Defaults to the `table` context value.
   */
  readonly existingTableName?: string;
  /**
   * The retained data key secret of the stack this one replaces, so that the signing secrets sealed under it still
   * open (docs/operations.md, "Rebuilding the stack"). Defaults to the `webhookDataKey` context value.
   */
  readonly webhookDataKeySecretArn?: string;
  /** Whether to run the canary; defaults to the `canary` context value (on, off), then to on in production only. */
  readonly canary?: boolean;
  /** The canary key's secret, by name or complete ARN; defaults to `canarySecret`, then to a secret the stack makes. */
  readonly canarySecret?: string;
  /** The SKU the canary prices; defaults to `canarySku`, then to `CANARY`. */
  readonly canarySku?: string;
  /** The table names the checkout's context files record (table-cut-over.ts); read from them by default. */
  readonly recordedTableNames?: readonly string[];
}

export class PricingServiceStack extends Stack {
  /** The stack's own table, or the existing one it was given. */
  readonly table: ITable;
  readonly queues: ReadonlyMap<QueueId, ServiceQueue>;
  /** Every function of the stack, by the id of its row in the route table (routes, fallback and workers). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** Every alarm is sent here; the stack outputs its ARN for the infra team to subscribe to. */
  readonly alarms: ServiceAlarms;
  /** The roles of the functions, one per access profile. */
  readonly roles: ServiceRoles;
  /** The customer-managed key, when the stack was given one. */
  readonly encryptionKey?: IKey;
  /** The canary, when the stack runs one (on by default in production). */
  readonly canary?: PriceCanary;

  constructor(scope: Construct, id: string, props: PricingServiceStackProps = {}) {
    super(scope, id, props);

    const contextStage: unknown = this.node.tryGetContext(stageContextKey);
    const stage = props.stage ?? (typeof contextStage === 'string' && contextStage !== '' ? contextStage : defaultStage);
    const disposable = stage === disposableStage;
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    // Cost allocation: Cost Explorer splits the bill by these once they are activated (docs/cost.md). CloudFormation
    // takes no tags on a dashboard (cfn-lint E3002), though the CDK offers them.
    const tagged = { excludeResourceTypes: untaggedResourceTypes };
    Tags.of(this).add(costTags.service, serviceName, tagged);
    Tags.of(this).add(costTags.stage, stage, tagged);

    const encryptionKey = customerManagedKey(this, props.kmsKey ?? this.node.tryGetContext(kmsKeyContextKey), removalPolicy);
    this.encryptionKey = encryptionKey;

    const existingTableName = props.existingTableName ?? this.node.tryGetContext(existingTableContextKey);
    const unrecorded = unrecordedTableWarning(
      typeof existingTableName === 'string' ? existingTableName : undefined,
      props.recordedTableNames ?? recordedTableNames(),
    );
    if (unrecorded) Annotations.of(this).addWarningV2('pricing-service:table-not-recorded', unrecorded);
    const table = serviceTableOrExisting(this, 'Data', existingTableName, {
      deletionProtection: !disposable,
      removalPolicy,
      encryptionKey,
    });
    this.table = table;

    const serviceQueues = new Map<QueueId, ServiceQueue>();
    for (const definition of Object.values(queues)) {
      serviceQueues.set(definition.id, new ServiceQueue(this, `${constructId(definition.id)}Queue`, { definition, encryptionKey }));
    }
    this.queues = serviceQueues;
    const queueFor = (queueId: QueueId): ServiceQueue => {
      const queue = serviceQueues.get(queueId);
      if (!queue) throw new Error(`no queue ${queueId} in shared/platform/queues.ts`);
      return queue;
    };

    const webhookDataKeySecret = webhookDataKey(this, 'WebhookDataKey', {
      existingSecretArn: props.webhookDataKeySecretArn ?? this.node.tryGetContext(webhookDataKeyContextKey),
      removalPolicy,
      encryptionKey,
    });

    // One log group for every function, whatever the number of routes: each stream is named after its function.
    const functionLogs = new LogGroup(this, 'FunctionLogs', { retention: logRetention, removalPolicy, encryptionKey });

    // Every function of this stack, so that the catalogue's collectives ('every /api/v1 and /v1 route') resolve to them.
    const fallback = props.fallbackRoute ?? fallbackRoute;
    const callers: TableCaller[] = [
      fallback,
      ...(props.routes ?? routes),
      ...(props.consoleRoutes ?? consoleRoutes),
      ...(props.workers ?? workers),
      ...(props.scheduledJobs ?? scheduledJobs),
    ];
    this.roles = new ServiceRoles(this, 'AccessRoles', { table, queueFor, webhookDataKey: webhookDataKeySecret, encryptionKey });

    /**
     * Turns a row's `access` into environment and a role: the table actions are those of the access patterns that
     * name the function (lib/stack/table-access.ts), the rest is the row's; nothing else is granted.
     */
    const serviceFunctions = new Map<string, ServiceFunction>();
    this.functions = serviceFunctions;
    const createFunction = (
      id: string,
      row: TableCaller & { entry: string; memoryMb: number; access: RouteAccess; files?: HttpRoute['files'] },
      timeoutSeconds: number,
      kind: { tag: 'route' | 'worker'; consumes?: QueueId },
    ): ServiceFunction => {
      const environment: Record<string, string> = {};
      if (row.access.table) environment[environmentNames.tableName] = table.tableName;
      for (const queueId of row.access.sendTo ?? []) {
        environment[queueUrlEnvironmentNames[queueId]] = queueFor(queueId).queue.queueUrl;
      }
      for (const queueId of row.access.sendToDeadLetter ?? []) {
        environment[deadLetterUrlEnvironmentNames[queueId]] = queueFor(queueId).deadLetterQueue.queueUrl;
      }

      if (row.access.webhookSecrets) environment[dataKeySecretIdEnvironmentName] = webhookDataKeySecret.secretArn;

      const tableAccess = row.access.table
        ? tableAccessOf(row, callers, props.accessPatterns ?? accessPatterns)
        : { tableActions: [], indexActions: [] };
      const role = this.roles.roleFor(
        {
          ...tableAccess,
          sendTo: row.access.sendTo ?? [],
          sendToDeadLetter: row.access.sendToDeadLetter ?? [],
          consumes: kind.consumes,
          webhookSecrets: row.access.webhookSecrets ?? false,
        },
        row.id,
      );
      const fn = new ServiceFunction(this, id, {
        entry: row.entry,
        memoryMb: row.memoryMb,
        timeoutSeconds,
        environment,
        logGroup: functionLogs,
        files: row.files,
        role,
      });
      Tags.of(fn).add(costTags[kind.tag], row.id);
      serviceFunctions.set(row.id, fn);
      return fn;
    };

    /** What the dashboard and the alarms watch: every function, with the route it serves. */
    const monitored: MonitoredFunction[] = [];

    const fallbackFunction = createFunction(`${constructId(fallback.id)}Function`, fallback, fallback.timeoutSeconds, { tag: 'route' });
    const api = new ServiceApi(this, 'Api', { fallbackFunction: fallbackFunction.function, removalPolicy, encryptionKey });
    monitored.push({ id: fallback.id, memoryMb: fallback.memoryMb, function: fallbackFunction.function, kind: 'http' });

    for (const route of props.routes ?? routes) {
      const fn = createFunction(`${constructId(route.id)}Function`, route, route.timeoutSeconds, { tag: 'route' });
      api.addRoute(route, fn.function);
      monitored.push({ id: route.id, memoryMb: route.memoryMb, function: fn.function, route, kind: 'http' });
    }

    // The console's routes: functions of their own, so that the API's functions carry none of the console's code.
    for (const route of props.consoleRoutes ?? consoleRoutes) {
      const fn = createFunction(`${constructId(route.id)}Function`, route, route.timeoutSeconds, { tag: 'route' });
      api.addRoute(route, fn.function);
      monitored.push({ id: route.id, memoryMb: route.memoryMb, function: fn.function, route, kind: 'http' });
    }

    for (const worker of props.workers ?? workers) {
      const source = queueFor(worker.queue);
      // The queue's visibility timeout is derived from this same number, which keeps it at six times the timeout.
      const fn = createFunction(`${constructId(worker.id)}Worker`, worker, queues[worker.queue].consumerTimeoutSeconds, {
        tag: 'worker',
        consumes: worker.queue,
      });
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
      const fn = createFunction(`${constructId(job.id)}Job`, job, job.timeoutSeconds, { tag: 'worker' });
      new Rule(this, `${constructId(job.id)}Schedule`, {
        schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
        targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
      });
      monitored.push({ id: job.id, memoryMb: job.memoryMb, function: fn.function, kind: 'job', everyMinutes: job.everyMinutes });
    }

    const canary = canaryChoice(this, props, !disposable);
    this.canary =
      canary && new PriceCanary(this, 'Canary', { choice: canary, apiUrl: api.url, logGroup: functionLogs, removalPolicy, encryptionKey });
    if (this.canary) Tags.of(this.canary.function).add(costTags.worker, canaryId);

    const metrics = new ServiceMetrics({ functions: monitored, api: api.api, stage: api.stage, queues: serviceQueues, table });
    const dashboard = new ServiceDashboard(this, 'Operations', { metrics, canary: this.canary !== undefined });
    this.alarms = new ServiceAlarms(this, 'Alarms', { metrics, canary: this.canary !== undefined });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the HTTP API' });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The service table' });
    new CfnOutput(this, 'FunctionLogGroup', { value: functionLogs.logGroupName, description: 'The log group every function writes to' });
    const operator = new OperatorPolicy(this, 'Operator', {
      table,
      queues: [...serviceQueues.values()],
      webhookDataKey: webhookDataKeySecret,
      encryptionKey,
      patterns: props.accessPatterns,
    });
    new CfnOutput(this, 'OperatorPolicyArn', {
      value: operator.policy.managedPolicyArn,
      description: 'Managed policy to attach to whoever runs the admin CLI with --aws against this stack',
    });
    new CfnOutput(this, 'AccessLogGroup', {
      value: api.accessLogGroup.logGroupName,
      description: 'The API access log: each request’s caller address, status and the Lambda request id its function logged',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'SNS topic of the alarms that page: subscribe the on-call of the team that runs the service',
    });
    new CfnOutput(this, 'TicketTopicArn', {
      value: this.alarms.ticketTopic.topicArn,
      description: 'SNS topic of the alarms for a ticket: subscribe the team’s queue of work for working hours',
    });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard' });
    new CfnOutput(this, 'WebhookDataKeySecretArn', {
      value: webhookDataKeySecret.secretArn,
      description: 'The secret the admin CLI reads (with --aws) to seal webhook signing secrets',
    });
    if (this.canary) {
      new CfnOutput(this, 'CanaryKeySecret', {
        value: this.canary.keySecretId,
        description: 'The secret the canary reads its erp key from: put the key in it (docs/operations.md, PriceCanaryFailing)',
      });
    }
    for (const [queueId, serviceQueue] of serviceQueues) {
      new CfnOutput(this, `${constructId(queueId)}QueueUrl`, {
        value: serviceQueue.queue.queueUrl,
        description: `URL of the ${queueId} queue`,
      });
    }
  }
}
