// The pricing service stack: table, queues, HTTP API and functions, all derived from the shared definitions.
import { Annotations, RemovalPolicy, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { serviceName } from '#platform/config.ts';
import { type QueueId, queues } from '#platform/queues.ts';
import type { ConsoleRoute, FallbackRoute, HttpRoute, QueueWorker, ScheduledJob } from '#edge/routes.ts';
import type { AccessPattern } from '#platform/table/access-patterns.ts';
import { constructId } from './constructs/construct-id.ts';
import { customerManagedKey, kmsKeyContextKey } from './constructs/customer-managed-key.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { webhookDataKey, webhookDataKeyContextKey } from './constructs/webhook-data-key.ts';
import { OperatorPolicy } from './constructs/operator-policy.ts';
import { canaryChoice, canaryId, PriceCanary } from './constructs/price-canary.ts';
import { recordedTableNames, unrecordedTableWarning } from './table-cut-over.ts';
import { ServiceDashboard } from './constructs/service-dashboard.ts';
import { logRetention, type ServiceFunction } from './constructs/service-function.ts';
import { ServiceMetrics } from './constructs/service-metrics.ts';
import { ServiceQueue } from './constructs/service-queue.ts';
import type { ServiceRoles } from './constructs/service-roles.ts';
import { existingTableContextKey, serviceTableOrExisting } from './constructs/service-table.ts';
import { costTags, untaggedResourceTypes } from './cost-tags.ts';
import { FunctionFactory, wireFunctions } from './service-functions.ts';
import { addStackOutputs } from './stack-outputs.ts';

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

export { costTags, untaggedResourceTypes };

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
  /**
   * The stack's stage (its props, the `stage` context, or production), with the cost-allocation tags it puts on every
   * resource: Cost Explorer splits the bill by these once they are activated (docs/cost.md). CloudFormation takes no
   * tags on a dashboard (cfn-lint E3002), though the CDK offers them.
   */
  private tagStage(props: PricingServiceStackProps): string {
    const contextStage: unknown = this.node.tryGetContext(stageContextKey);
    const stage = props.stage ?? (typeof contextStage === 'string' && contextStage !== '' ? contextStage : defaultStage);
    const tagged = { excludeResourceTypes: untaggedResourceTypes };
    Tags.of(this).add(costTags.service, serviceName, tagged);
    Tags.of(this).add(costTags.stage, stage, tagged);
    return stage;
  }

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

    const stage = this.tagStage(props);
    const disposable = stage === disposableStage;
    const removalPolicy = disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;

    const encryptionKey = customerManagedKey(this, props.kmsKey ?? this.node.tryGetContext(kmsKeyContextKey), removalPolicy);
    this.encryptionKey = encryptionKey;
    const table = this.dataTable(props, disposable, removalPolicy, encryptionKey);
    this.table = table;
    const serviceQueues = new Map<QueueId, ServiceQueue>();
    for (const definition of Object.values(queues)) {
      serviceQueues.set(definition.id, new ServiceQueue(this, `${constructId(definition.id)}Queue`, { definition, encryptionKey }));
    }
    this.queues = serviceQueues;
    const webhookDataKeySecret = webhookDataKey(this, 'WebhookDataKey', {
      existingSecretArn: props.webhookDataKeySecretArn ?? this.node.tryGetContext(webhookDataKeyContextKey),
      removalPolicy,
      encryptionKey,
    });
    // One log group for every function, whatever the number of routes: each stream is named after its function.
    const functionLogs = new LogGroup(this, 'FunctionLogs', { retention: logRetention, removalPolicy, encryptionKey });

    const factory = new FunctionFactory(this, { props, table, queues: serviceQueues, webhookDataKeySecret, functionLogs, encryptionKey });
    this.roles = factory.roles;
    this.functions = factory.functions;
    const { api, monitored } = wireFunctions(this, factory, props, { removalPolicy, encryptionKey });

    const canary = canaryChoice(this, props, !disposable);
    this.canary =
      canary && new PriceCanary(this, 'Canary', { choice: canary, apiUrl: api.url, logGroup: functionLogs, removalPolicy, encryptionKey });
    if (this.canary) Tags.of(this.canary.function).add(costTags.worker, canaryId);

    const metrics = new ServiceMetrics({ functions: monitored, api: api.api, stage: api.stage, queues: serviceQueues, table });
    const dashboard = new ServiceDashboard(this, 'Operations', { metrics, canary: this.canary !== undefined });
    this.alarms = new ServiceAlarms(this, 'Alarms', { metrics, canary: this.canary !== undefined });
    const operator = new OperatorPolicy(this, 'Operator', {
      table,
      queues: [...serviceQueues.values()],
      webhookDataKey: webhookDataKeySecret,
      encryptionKey,
      patterns: props.accessPatterns,
    });
    addStackOutputs(this, {
      api,
      table,
      functionLogs,
      operator,
      alarms: this.alarms,
      dashboard,
      webhookDataKeySecret,
      queues: serviceQueues,
      canary: this.canary,
    });
  }

  /** The stack's own table, or the existing one the stack was given, with a warning when no context file records it. */
  private dataTable(props: PricingServiceStackProps, disposable: boolean, removalPolicy: RemovalPolicy, encryptionKey: IKey | undefined) {
    const existingTableName = props.existingTableName ?? this.node.tryGetContext(existingTableContextKey);
    const unrecorded = unrecordedTableWarning(
      typeof existingTableName === 'string' ? existingTableName : undefined,
      props.recordedTableNames ?? recordedTableNames(),
    );
    if (unrecorded) Annotations.of(this).addWarningV2('pricing-service:table-not-recorded', unrecorded);
    return serviceTableOrExisting(this, 'Data', existingTableName, { deletionProtection: !disposable, removalPolicy, encryptionKey });
  }
}
