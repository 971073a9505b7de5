// The stack's functions: each row of the route table, the console's, the workers and the scheduled jobs made a function with exactly the environment and role its row's access names, and wired to what calls it.
import { Duration, type RemovalPolicy, Tags } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { environmentNames } from '#platform/config.ts';
import { type QueueId, queues as queueDefinitions } from '#platform/queues.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { consoleRoutes, fallbackRoute, type HttpRoute, type RouteAccess, routes, scheduledJobs, workers } from '#edge/routes.ts';
import { dataKeySecretIdEnvironmentName } from '#shared/webhooks/secrets.ts';
import { constructId } from './constructs/construct-id.ts';
import { costTags } from './cost-tags.ts';
import type { MonitoredFunction } from './constructs/monitored.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import type { ServiceQueue } from './constructs/service-queue.ts';
import { ServiceRoles } from './constructs/service-roles.ts';
import type { PricingServiceStackProps } from './pricing-service-stack.ts';
import { tableAccessOf, type TableCaller } from './table-access.ts';

/** Which variable carries a queue's URL; typed per QueueId so a new queue cannot be added without naming one. */
const queueUrlEnvironmentNames: Readonly<Record<QueueId, string>> = {
  drain: environmentNames.drainQueueUrl,
  webhooks: environmentNames.webhooksQueueUrl,
};
const deadLetterUrlEnvironmentNames: Readonly<Record<QueueId, string>> = {
  drain: environmentNames.drainDeadLetterQueueUrl,
  webhooks: environmentNames.webhooksDeadLetterQueueUrl,
};

/** What every function is made with: the stack's table, queues, data key secret, log group and key. */
export interface FunctionResources {
  readonly props: PricingServiceStackProps;
  readonly table: ITable;
  readonly queues: ReadonlyMap<QueueId, ServiceQueue>;
  readonly webhookDataKeySecret: ISecret;
  readonly functionLogs: ILogGroup;
  readonly encryptionKey: IKey | undefined;
}

type FunctionRow = TableCaller & { entry: string; memoryMb: number; access: RouteAccess; files?: HttpRoute['files'] };

/**
 * Turns a row's `access` into environment and a role: the table actions are those of the access patterns that name
 * the function (lib/stack/table-access.ts), the rest is the row's; nothing else is granted.
 */
export class FunctionFactory {
  readonly roles: ServiceRoles;
  readonly functions = new Map<string, ServiceFunction>();
  /** Every function of this stack, so that the catalogue's collectives ('every /api/v1 and /v1 route') resolve to them. */
  private readonly callers: TableCaller[];
  private readonly scope: Construct;
  private readonly resources: FunctionResources;

  constructor(scope: Construct, resources: FunctionResources) {
    const { props } = resources;
    this.scope = scope;
    this.resources = resources;
    this.callers = [
      props.fallbackRoute ?? fallbackRoute,
      ...(props.routes ?? routes),
      ...(props.consoleRoutes ?? consoleRoutes),
      ...(props.workers ?? workers),
      ...(props.scheduledJobs ?? scheduledJobs),
    ];
    const { table, webhookDataKeySecret: webhookDataKey, encryptionKey } = resources;
    this.roles = new ServiceRoles(scope, 'AccessRoles', { table, queueFor: (id) => this.queueFor(id), webhookDataKey, encryptionKey });
  }

  queueFor(queueId: QueueId): ServiceQueue {
    const queue = this.resources.queues.get(queueId);
    if (!queue) throw new Error(`no queue ${queueId} in shared/platform/queues.ts`);
    return queue;
  }

  create(id: string, row: FunctionRow, timeoutSeconds: number, kind: { tag: 'route' | 'worker'; consumes?: QueueId }): ServiceFunction {
    const { table, webhookDataKeySecret, functionLogs, props } = this.resources;
    const environment: Record<string, string> = {};
    if (row.access.table) environment[environmentNames.tableName] = table.tableName;
    for (const queueId of row.access.sendTo ?? []) environment[queueUrlEnvironmentNames[queueId]] = this.queueFor(queueId).queue.queueUrl;
    for (const queueId of row.access.sendToDeadLetter ?? []) {
      environment[deadLetterUrlEnvironmentNames[queueId]] = this.queueFor(queueId).deadLetterQueue.queueUrl;
    }
    if (row.access.webhookSecrets) environment[dataKeySecretIdEnvironmentName] = webhookDataKeySecret.secretArn;
    const tableAccess = row.access.table
      ? tableAccessOf(row, this.callers, props.accessPatterns ?? accessPatterns)
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
    const { entry, memoryMb, files } = row;
    const fn = new ServiceFunction(this.scope, id, { entry, memoryMb, timeoutSeconds, environment, logGroup: functionLogs, files, role });
    Tags.of(fn).add(costTags[kind.tag], row.id);
    this.functions.set(row.id, fn);
    return fn;
  }
}

/**
 * The API with a function per route (the fallback, the API's routes, the console's, which get functions of their own
 * so that the API's carry none of the console's code), a function per queue worker fed by its queue, and one per
 * scheduled job; and what the dashboard and the alarms watch: every function, with the route it serves.
 */
export function wireFunctions(
  scope: Construct,
  factory: FunctionFactory,
  props: PricingServiceStackProps,
  storage: { readonly removalPolicy: RemovalPolicy; readonly encryptionKey: IKey | undefined },
): { api: ServiceApi; monitored: MonitoredFunction[] } {
  const fallback = props.fallbackRoute ?? fallbackRoute;
  const fallbackFunction = factory.create(`${constructId(fallback.id)}Function`, fallback, fallback.timeoutSeconds, { tag: 'route' });
  const api = new ServiceApi(scope, 'Api', { fallbackFunction: fallbackFunction.function, ...storage });
  const monitored: MonitoredFunction[] = [
    { id: fallback.id, memoryMb: fallback.memoryMb, function: fallbackFunction.function, kind: 'http' },
  ];
  for (const route of [...(props.routes ?? routes), ...(props.consoleRoutes ?? consoleRoutes)]) {
    const fn = factory.create(`${constructId(route.id)}Function`, route, route.timeoutSeconds, { tag: 'route' });
    api.addRoute(route, fn.function);
    monitored.push({ id: route.id, memoryMb: route.memoryMb, function: fn.function, route, kind: 'http' });
  }
  for (const worker of props.workers ?? workers) {
    // The queue's visibility timeout is derived from this same number, which keeps it at six times the timeout.
    const timeout = queueDefinitions[worker.queue].consumerTimeoutSeconds;
    const fn = factory.create(`${constructId(worker.id)}Worker`, worker, timeout, { tag: 'worker', consumes: worker.queue });
    const { batchSize, maxConcurrency } = worker;
    fn.function.addEventSource(
      new SqsEventSource(factory.queueFor(worker.queue).queue, { batchSize, maxConcurrency, reportBatchItemFailures: true }),
    );
    monitored.push({ id: worker.id, memoryMb: worker.memoryMb, function: fn.function, kind: 'worker' });
  }
  for (const job of props.scheduledJobs ?? scheduledJobs) {
    const fn = factory.create(`${constructId(job.id)}Job`, job, job.timeoutSeconds, { tag: 'worker' });
    new Rule(scope, `${constructId(job.id)}Schedule`, {
      schedule: Schedule.rate(Duration.minutes(job.everyMinutes)),
      targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
    });
    monitored.push({ id: job.id, memoryMb: job.memoryMb, function: fn.function, kind: 'job', everyMinutes: job.everyMinutes });
  }
  return { api, monitored };
}
