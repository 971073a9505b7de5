// The functions' roles, one per access profile: functions that may do the same things share a role and its policy.
import { createHash } from 'node:crypto';
import { Lazy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { QueueId } from '#platform/queues.ts';
import { tableWriteActions } from '#lib/stack/table-access.ts';
import type { ServiceQueue } from './service-queue.ts';

/** Everything a function may touch besides its own log group and X-Ray: two functions with equal profiles share a role. */
export interface AccessProfile {
  /** IAM actions on the table's ARN, sorted. */
  readonly tableActions: readonly string[];
  /** IAM actions on the table's indexes, sorted; empty when the function queries none. */
  readonly indexActions: readonly string[];
  readonly sendTo: readonly QueueId[];
  readonly sendToDeadLetter: readonly QueueId[];
  /** The queue a worker's event source takes messages from. */
  readonly consumes?: QueueId;
  readonly webhookSecrets: boolean;
}

export interface ServiceRolesProps {
  /** The stack's own table, or an existing one it was pointed at (`-c table=…`). */
  readonly table: ITable;
  readonly queueFor: (queueId: QueueId) => ServiceQueue;
  readonly webhookDataKey: ISecret;
  /** The customer-managed key of the table, when the stack is given one; the queues' grants carry their own. */
  readonly encryptionKey?: IKey;
}

/**
 * The key actions a reader of the table needs, and those a writer needs besides: DynamoDB's own grants, spelled out
 * rather than as `kms:ReEncrypt*` and `kms:GenerateDataKey*`, so that no policy holds a wildcard action.
 */
export const tableKeyActions = {
  read: ['kms:Decrypt', 'kms:DescribeKey'],
  write: ['kms:Encrypt', 'kms:ReEncryptFrom', 'kms:ReEncryptTo', 'kms:GenerateDataKey', 'kms:GenerateDataKeyWithoutPlaintext'],
} as const;

/** What a producer of an SQS queue under a customer-managed key needs of the key: a data key, and to read it back. */
export const queueKeyActions = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/** A profile's words, in one order whatever order its lists came in. */
function profileText(profile: AccessProfile): string {
  return JSON.stringify({
    tableActions: [...profile.tableActions].sort(),
    indexActions: [...profile.indexActions].sort(),
    sendTo: [...profile.sendTo].sort(),
    sendToDeadLetter: [...profile.sendToDeadLetter].sort(),
    consumes: profile.consumes ?? null,
    webhookSecrets: profile.webhookSecrets,
  });
}

/**
 * A resolved resource as cdk-nag names it in a finding: `<Logical.Arn>` for the stack's own table, the ARN with
 * `<AWS::Region>` and the like for a table the stack only names. The acknowledgement must carry the same words.
 */
export function findingText(resolved: unknown): string {
  if (typeof resolved === 'string') return resolved;
  const node = resolved as { 'Fn::Join'?: [string, unknown[]]; 'Fn::GetAtt'?: [string, string]; Ref?: string };
  if (node['Fn::Join']) return node['Fn::Join'][1].map(findingText).join(node['Fn::Join'][0]);
  if (node['Fn::GetAtt']) return `<${node['Fn::GetAtt'][0]}.${node['Fn::GetAtt'][1]}>`;
  if (node.Ref) return `<${node.Ref}>`;
  return JSON.stringify(resolved);
}

export class ServiceRoles extends Construct {
  private readonly roles = new Map<string, { role: Role; functionIds: string[] }>();
  private readonly props: ServiceRolesProps;

  constructor(scope: Construct, id: string, props: ServiceRolesProps) {
    super(scope, id);
    this.props = props;
  }

  /** The role of a profile, made with its grants the first time a function asks for it. */
  roleFor(profile: AccessProfile, functionId: string): Role {
    const text = profileText(profile);
    const existing = this.roles.get(text);
    if (existing) {
      existing.functionIds.push(functionId);
      return existing.role;
    }
    const functionIds = [functionId];
    // Named by its profile, so that a function joining or leaving a profile renames no role.
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 10);
    const role = new Role(this, `Role${digest}`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: Lazy.string({ produce: () => `Pricing service functions: ${functionIds.join(', ')}`.slice(0, 1000) }),
    });
    this.grant(role, profile);
    // Active tracing grants xray:PutTraceSegments and xray:PutTelemetryRecords, which take no resource but `*`.
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray accepts trace segments and telemetry only on the resource *; the statement holds those two actions and nothing else.',
    });
    this.roles.set(text, { role, functionIds });
    return role;
  }

  /** How many roles the functions have between them. */
  get size(): number {
    return this.roles.size;
  }

  private grant(role: Role, profile: AccessProfile): void {
    const { table, queueFor, webhookDataKey, encryptionKey } = this.props;
    if (profile.tableActions.length > 0) {
      role.addToPrincipalPolicy(new PolicyStatement({ actions: [...profile.tableActions], resources: [table.tableArn] }));
    }
    if (profile.indexActions.length > 0) {
      const indexes = `${table.tableArn}/index/*`;
      role.addToPrincipalPolicy(new PolicyStatement({ actions: [...profile.indexActions], resources: [indexes] }));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${findingText(Stack.of(this).resolve(indexes))}]`,
        reason: 'Only Query, on the indexes of this one table, for the access patterns that read an index; nothing else.',
      });
    }
    if (encryptionKey && profile.tableActions.length + profile.indexActions.length > 0) {
      // What DynamoDB's own grants give a reader and a writer of a table under a customer-managed key.
      const writes = profile.tableActions.some((action) => tableWriteActions.has(action));
      encryptionKey.grant(role, ...tableKeyActions.read, ...(writes ? tableKeyActions.write : []));
    }
    if (profile.webhookSecrets) webhookDataKey.grantRead(role);
    const targets = [
      ...profile.sendTo.map((queueId) => queueFor(queueId).queue),
      ...profile.sendToDeadLetter.map((queueId) => queueFor(queueId).deadLetterQueue),
    ];
    // grantSendMessages would add the key's wildcard actions; these are the same grants with the key's spelled out.
    for (const queue of targets) {
      queue.grant(role, 'sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl');
      queue.encryptionMasterKey?.grant(role, ...queueKeyActions);
    }
  }
}
