// The customer-managed KMS key of the stack's data, when the operator asks for one: a new key the stack makes, or an existing key by its ARN.
import { Aws, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';

/** Context key for a customer-managed KMS key: `-c kmsKey=new` makes one, `-c kmsKey=arn:aws:kms:…` uses that key. */
export const kmsKeyContextKey = 'kmsKey';

/**
 * The customer-managed key of the stack's data, or none. A key the stack makes rotates yearly and lets CloudWatch
 * Logs use it for this account's log groups; an existing key's policy must allow the same (docs/operations.md).
 */
export function customerManagedKey(scope: Construct, choice: unknown, removalPolicy: RemovalPolicy): IKey | undefined {
  if (choice === undefined || choice === '' || choice === false) return undefined;
  if (choice !== 'new') {
    if (typeof choice !== 'string' || !/^arn:aws[\w-]*:kms:[\w-]+:\d{12}:key\/[\w-]+$/.test(choice)) {
      throw new Error(
        `${kmsKeyContextKey} must be 'new' or a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), not ${String(choice)}`,
      );
    }
    return Key.fromKeyArn(scope, 'DataKey', choice);
  }
  const key = new Key(scope, 'DataKey', {
    description: 'Pricing service data: table, queues, webhook data key and log groups',
    enableKeyRotation: true,
    removalPolicy,
  });
  key.addToResourcePolicy(
    new PolicyStatement({
      principals: [new ServicePrincipal(`logs.${Aws.REGION}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: { 'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${Aws.REGION}:${Aws.ACCOUNT_ID}:log-group:*` },
      },
    }),
  );
  return key;
}
