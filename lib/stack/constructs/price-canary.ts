// The canary: a function that prices one line through the public API every few minutes with an erp key kept in Secrets Manager, its schedule, its role and its key's secret.
import { Duration, type RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { environmentNames } from '#platform/config.ts';
import { UNSET_KEY_PLACEHOLDER } from '#shared/canary/run.ts';
import { findingText } from './service-roles.ts';
import { ServiceFunction } from './service-function.ts';

/** The context keys: `-c canary=on|off`, `-c canarySecret=<name or complete ARN>`, `-c canarySku=<SKU>`. */
export const canaryContextKeys = { canary: 'canary', secret: 'canarySecret', sku: 'canarySku' } as const;

/** The canary's id: its `worker` tag, its trace annotation and its log lines' `route`. */
export const canaryId = 'priceCanary';

/** Every five minutes: the alarm's three runs are a quarter of an hour, at about 8,900 runs (and lines priced) a month. */
export const canaryEveryMinutes = 5;

/** The SKU priced when the operator names none: the workspace of the key needs a product of that SKU, with a cost. */
export const defaultCanarySku = 'CANARY';

/** A complete secret ARN, with the six characters Secrets Manager adds to the name; a name is taken as it is. */
const completeSecretArn = /^arn:aws[\w-]*:secretsmanager:[\w-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/;

/** What the stack was asked for: no canary, or one reading the named secret (or a secret of its own) and pricing the SKU. */
export interface CanaryChoice {
  readonly secret?: string;
  readonly sku: string;
}

/** The operator's choice, from props, then context; on by default only where the stack is production. */
export function canaryChoice(
  scope: Construct,
  given: { canary?: boolean; canarySecret?: string; canarySku?: string },
  production: boolean,
): CanaryChoice | undefined {
  const context = (key: string): unknown => scope.node.tryGetContext(key);
  const switched = given.canary ?? context(canaryContextKeys.canary);
  if (switched !== undefined && switched !== true && switched !== false && switched !== 'on' && switched !== 'off') {
    throw new Error(`-c ${canaryContextKeys.canary}= takes on or off, not ${JSON.stringify(switched)}`);
  }
  const on = switched === undefined ? production : switched === true || switched === 'on';
  if (!on) return undefined;
  const text = (value: unknown, key: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') throw new Error(`-c ${key}= takes text, not ${JSON.stringify(value)}`);
    return value;
  };
  const secret = text(given.canarySecret ?? context(canaryContextKeys.secret), canaryContextKeys.secret);
  if (secret?.startsWith('arn:') && !completeSecretArn.test(secret)) {
    throw new Error(`-c ${canaryContextKeys.secret}= takes the secret's name or its complete ARN (…:secret:<name>-<6 characters>)`);
  }
  return { secret, sku: text(given.canarySku ?? context(canaryContextKeys.sku), canaryContextKeys.sku) ?? defaultCanarySku };
}

export interface PriceCanaryProps {
  readonly choice: CanaryChoice;
  /** The API's public URL, as a caller on the internet reaches it. */
  readonly apiUrl: string;
  readonly logGroup: ILogGroup;
  readonly removalPolicy: RemovalPolicy;
  readonly encryptionKey?: IKey;
}

export class PriceCanary extends Construct {
  readonly function: ServiceFunction;
  /** The secret holding the key: the operator's, or the placeholder the stack made for them to fill. */
  readonly keySecret: ISecret;
  /** What the function is given to read: the secret's name or ARN, never its value. */
  readonly keySecretId: string;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: PriceCanaryProps) {
    super(scope, id);
    const { choice } = props;
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: "Pricing service canary: reads its key secret, and nothing of the service's data",
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray accepts trace segments and telemetry only on the resource *; the statement holds those two actions and nothing else.',
    });
    const owned = this.keySecretFor(choice.secret, props);
    this.keySecret = owned.secret;
    this.keySecretId = owned.id;
    // GetSecretValue alone: not DescribeSecret, nor anything of the table or the queues.
    role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [owned.policyArn] }));
    if (owned.wildcard) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${findingText(Stack.of(this).resolve(owned.policyArn))}]`,
        reason: 'A secret named rather than given by its complete ARN: the six characters Secrets Manager adds to its name are unknown.',
      });
    }
    if (choice.secret === undefined) props.encryptionKey?.grant(role, 'kms:Decrypt');

    this.function = new ServiceFunction(this, 'Function', {
      entry: 'functions/workers/price-canary.ts',
      memoryMb: 256,
      // The price call gives up after 10 s (shared/canary/price-check.ts); the secret's read and a cold start fit in the rest.
      timeoutSeconds: 20,
      environment: {
        [environmentNames.canaryApiUrl]: props.apiUrl,
        [environmentNames.canaryKeySecretId]: owned.id,
        [environmentNames.canarySku]: choice.sku,
      },
      logGroup: props.logGroup,
      role,
    });
    this.rule = new Rule(this, 'Schedule', {
      schedule: Schedule.rate(Duration.minutes(canaryEveryMinutes)),
      // No retry: a failed run is the signal, and the next one comes in five minutes.
      targets: [new LambdaFunction(this.function.function, { retryAttempts: 0 })],
    });
  }

  private keySecretFor(
    given: string | undefined,
    props: PriceCanaryProps,
  ): { secret: ISecret; id: string; policyArn: string; wildcard: boolean } {
    if (given === undefined) {
      const secret = new Secret(this, 'KeySecret', {
        description: "The pricing service canary's API key: an erp key of the workspace that has the canary's SKU (docs/operations.md)",
        secretStringValue: SecretValue.unsafePlainText(UNSET_KEY_PLACEHOLDER),
        removalPolicy: props.removalPolicy,
        encryptionKey: props.encryptionKey,
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason: 'An API key of the service, made and revoked with the admin CLI: Secrets Manager cannot rotate it, the operator does.',
      });
      return { secret, id: secret.secretArn, policyArn: secret.secretArn, wildcard: false };
    }
    if (given.startsWith('arn:')) {
      const secret = Secret.fromSecretCompleteArn(this, 'KeySecret', given);
      return { secret, id: given, policyArn: given, wildcard: false };
    }
    const secret = Secret.fromSecretNameV2(this, 'KeySecret', given);
    return { secret, id: given, policyArn: `${secret.secretArn}-??????`, wildcard: true };
  }
}
