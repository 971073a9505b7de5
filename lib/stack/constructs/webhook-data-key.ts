// The data key that seals webhook signing secrets: the stack's own secret, or, for a rebuilt stack, the retained secret of the stack it replaces.
import { type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';

/** `-c webhookDataKey=<secret ARN>`: the complete ARN of an earlier stack's `WebhookDataKeySecretArn` output. */
export const webhookDataKeyContextKey = 'webhookDataKey';

/** A complete secret ARN, with the six characters Secrets Manager adds to the name: a partial ARN cannot be granted. */
const completeSecretArn = /^arn:aws[\w-]*:secretsmanager:[\w-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;

export interface WebhookDataKeyProps {
  /** The existing secret's ARN, or undefined for a new one. */
  readonly existingSecretArn: unknown;
  readonly removalPolicy: RemovalPolicy;
  readonly encryptionKey?: IKey;
}

/**
 * Random text the stack generates, read by the functions that mint or sign with secrets, once per cold start. Kept
 * with the table: without it the stored secrets are lost. A stack rebuilt around a kept table takes the kept secret
 * instead (it is retained, as the table is), so that every signing secret sealed under it still opens.
 */
export function webhookDataKey(scope: Construct, id: string, props: WebhookDataKeyProps): ISecret {
  const { existingSecretArn } = props;
  if (existingSecretArn !== undefined && existingSecretArn !== '') {
    if (typeof existingSecretArn !== 'string' || !completeSecretArn.test(existingSecretArn)) {
      throw new Error(
        `-c ${webhookDataKeyContextKey}= takes the complete ARN of the earlier stack's WebhookDataKeySecretArn output ` +
          `(arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>), not ${JSON.stringify(existingSecretArn)}`,
      );
    }
    return Secret.fromSecretCompleteArn(scope, id, existingSecretArn);
  }
  const secret = new Secret(scope, id, {
    description: 'Key material for sealing webhook signing secrets (AES-256-GCM); never rotate without re-sealing them.',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    removalPolicy: props.removalPolicy,
    encryptionKey: props.encryptionKey,
  });
  Validations.of(secret).acknowledge({
    id: 'AwsSolutions-SMG4',
    reason: 'Rotating the data key would strand every sealed signing secret; the secrets themselves rotate per endpoint.',
  });
  return secret;
}
