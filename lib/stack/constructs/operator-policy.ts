// The managed policy an operator attaches to run `npm run admin -- … --aws`: the table calls of the access catalogue, the queues' dead-letter handling, the webhook data key; nothing else.
import { Stack, Validations } from 'aws-cdk-lib';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { type AccessPattern, accessPatterns } from '#platform/table/access-patterns.ts';
import { tableCallActions } from '../table-access.ts';
import { findingText, queueKeyActions, tableKeyActions } from './service-roles.ts';
import type { ServiceQueue } from './service-queue.ts';

/** What the admin CLI's `dlq` commands call on a work queue and its dead-letter queue. */
export const operatorQueueActions = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:SendMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
] as const;

export interface OperatorPolicyProps {
  readonly table: ITable;
  readonly queues: readonly ServiceQueue[];
  readonly webhookDataKey: ISecret;
  readonly encryptionKey?: IKey;
  readonly patterns?: readonly AccessPattern[];
}

export class OperatorPolicy extends Construct {
  readonly policy: ManagedPolicy;

  constructor(scope: Construct, id: string, props: OperatorPolicyProps) {
    super(scope, id);
    const { table, queues, webhookDataKey, encryptionKey } = props;
    // The admin commands run the service's own domain code against the table, so they make the catalogue's calls: all
    // of them, and no call the catalogue does not list (no Scan unless a pattern names one).
    const actions = (props.patterns ?? accessPatterns).flatMap((pattern) => pattern.calls).map((call) => tableCallActions[call]);
    const tableActions = [...new Set(actions.flatMap((action) => (action.table ? [action.table] : [])))].sort();
    const indexActions = [...new Set(actions.flatMap((action) => (action.index ? [action.index] : [])))].sort();
    const indexes = `${table.tableArn}/index/*`;
    this.policy = new ManagedPolicy(this, 'Policy', {
      description: 'Attach to the people or roles that run the admin CLI with --aws against this stack (docs/operations.md).',
      statements: [
        new PolicyStatement({ actions: tableActions, resources: [table.tableArn] }),
        new PolicyStatement({ actions: indexActions, resources: [indexes] }),
        new PolicyStatement({
          actions: [...operatorQueueActions],
          resources: queues.flatMap((queue) => [queue.queue.queueArn, queue.deadLetterQueue.queueArn]),
        }),
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          resources: [webhookDataKey.secretArn],
        }),
        ...(encryptionKey
          ? [
              new PolicyStatement({
                actions: [...new Set([...tableKeyActions.read, ...tableKeyActions.write, ...queueKeyActions])],
                resources: [encryptionKey.keyArn],
              }),
            ]
          : []),
      ],
    });
    Validations.of(this.policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${findingText(Stack.of(this).resolve(indexes))}]`,
      reason: 'Only the index calls of the access catalogue, on the indexes of this one table.',
    });
  }
}
