// Template tests of the canary: on by default in production, off in dev or when switched off, its schedule, its alarm, and a role that reads its key's secret and nothing else.
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { alarmThresholds } from '#lib/stack/constructs/service-alarms.ts';
import { canaryContextKeys, defaultCanarySku } from '#lib/stack/constructs/price-canary.ts';
import { PricingServiceStack, type PricingServiceStackProps } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { environmentNames, metricsNamespace } from '#platform/config.ts';
import { canaryMetricNames } from '#shared/canary/run.ts';

function synthesize(context: Record<string, unknown> = {}, props: PricingServiceStackProps = {}) {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new PricingServiceStack(app, 'PricingService', props);
  return { stack, template: Template.fromStack(stack) };
}

type Resource = { Type: string; Properties: Record<string, unknown> };
const resourcesOf = (template: Template, type: string) => Object.values(template.findResources(type)) as Resource[];
const canaryAlarms = (template: Template) =>
  resourcesOf(template, 'AWS::CloudWatch::Alarm').filter((alarm) => JSON.stringify(alarm).includes(canaryMetricNames.success));
/** The canary's function: the one given the canary's settings. */
const canaryFunctions = (template: Template) =>
  resourcesOf(template, 'AWS::Lambda::Function').filter((fn) =>
    JSON.stringify(fn.Properties.Environment).includes(environmentNames.canarySku),
  );

const production = synthesize();

describe('the canary in a production stack', () => {
  const { stack, template } = production;
  const [fn] = canaryFunctions(template);
  const variables = (fn?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;

  it('is on by default: one function that prices the default SKU through the API’s own URL', () => {
    expect(canaryFunctions(template)).toHaveLength(1);
    expect(variables[environmentNames.canarySku]).toBe(defaultCanarySku);
    expect(JSON.stringify(variables[environmentNames.canaryApiUrl])).toContain('ApiHttpApi');
  });

  it('runs every 5 minutes on an EventBridge schedule, without retries', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [
        Match.objectLike({ Arn: stack.resolve(stack.canary?.function.function.functionArn), RetryPolicy: { MaximumRetryAttempts: 0 } }),
      ],
    });
  });

  it('gets its key’s secret by ARN only, and the secret the stack makes holds no key, only a placeholder', () => {
    const secretArn = stack.resolve(stack.canary?.keySecret.secretArn);
    expect(variables[environmentNames.canaryKeySecretId]).toEqual(secretArn);
    const secrets = resourcesOf(template, 'AWS::SecretsManager::Secret').filter((secret) =>
      String(secret.Properties.Description).includes('canary'),
    );
    expect(secrets).toHaveLength(1);
    expect(String(secrets[0]?.Properties.SecretString)).toMatch(/^unset: /);
    expect(secrets[0]?.Properties).not.toHaveProperty('GenerateSecretString');
    template.hasOutput('CanaryKeySecret', { Value: secretArn });
  });

  it('may only read that secret’s value: no DescribeSecret, no table, no queue', () => {
    const role = stack.resolve(stack.canary?.function.role.roleName) as { Ref: string };
    const policies = resourcesOf(template, 'AWS::IAM::Policy').filter((policy) =>
      JSON.stringify(policy.Properties.Roles).includes(role.Ref),
    );
    const statements = policies.flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement,
    );
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(actions.filter((action) => action.startsWith('secretsmanager:'))).toEqual(['secretsmanager:GetSecretValue']);
    expect(statements.find((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))?.Resource).toEqual(
      stack.resolve(stack.canary?.keySecret.secretArn),
    );
    for (const action of actions) expect(action, action).toMatch(/^(secretsmanager:GetSecretValue|logs:\w+|xray:\w+)$/);
  });

  it('has a row of the dashboard: its runs, and how long each waited for its price', () => {
    const [dashboard] = resourcesOf(template, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard?.Properties.DashboardBody);
    expect(body).toContain(canaryMetricNames.success);
    expect(body).toContain(canaryMetricNames.latency);
  });

  it('pages when three runs in a row priced nothing, its silence counting as failure', () => {
    const [alarm, ...others] = canaryAlarms(template);
    expect(others).toEqual([]);
    expect(alarm?.Properties).toMatchObject({
      Namespace: metricsNamespace,
      Statistic: 'Maximum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: alarmThresholds.canaryFailedRuns,
      DatapointsToAlarm: alarmThresholds.canaryFailedRuns,
      TreatMissingData: 'breaching',
      AlarmActions: [stack.resolve(stack.alarms.topic.topicArn)],
    });
    expect(String(alarm?.Properties.AlarmDescription)).toMatch(/^\[page\] /);
    expect(stack.alarms.severities.get('PriceCanaryFailing')).toBe('page');
  });
});

describe('the canary switched by context', () => {
  it('is off in a dev stack, with no function, schedule, secret, alarm or output of its own', () => {
    const { stack, template } = synthesize({ stage: 'dev' });
    expect(stack.canary).toBeUndefined();
    expect(canaryFunctions(template)).toEqual([]);
    expect(canaryAlarms(template)).toEqual([]);
    expect(JSON.stringify(resourcesOf(template, 'AWS::CloudWatch::Dashboard'))).not.toContain(canaryMetricNames.success);
    expect(Object.keys(template.toJSON().Outputs as object)).not.toContain('CanaryKeySecret');
    expect(resourcesOf(template, 'AWS::Events::Rule').filter((rule) => rule.Properties.ScheduleExpression === 'rate(5 minutes)')).toEqual(
      [],
    );
  });

  it('is off in production with -c canary=off, and on in dev with -c canary=on', () => {
    expect(canaryFunctions(synthesize({ [canaryContextKeys.canary]: 'off' }).template)).toEqual([]);
    expect(canaryFunctions(synthesize({ stage: 'dev', [canaryContextKeys.canary]: 'on' }).template)).toHaveLength(1);
    expect(() => synthesize({ [canaryContextKeys.canary]: 'yes' })).toThrow(/takes on or off/);
  });

  it('reads a secret the operator names instead of making one, and prices the SKU they name', () => {
    const { stack, template } = synthesize({ [canaryContextKeys.secret]: 'pricing/canary-key', [canaryContextKeys.sku]: 'BOLT-M8' });
    const variables = (canaryFunctions(template)[0]?.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables[environmentNames.canaryKeySecretId]).toBe('pricing/canary-key');
    expect(variables[environmentNames.canarySku]).toBe('BOLT-M8');
    expect(resourcesOf(template, 'AWS::SecretsManager::Secret').filter((secret) => JSON.stringify(secret).includes('canary'))).toEqual([]);
    template.hasOutput('CanaryKeySecret', { Value: 'pricing/canary-key' });
    expect(stack.canary?.keySecretId).toBe('pricing/canary-key');
    // A name leaves the six characters Secrets Manager adds unknown: the grant covers exactly those.
    expect(JSON.stringify(template.toJSON())).toContain(':secret:pricing/canary-key-??????');
  });

  it('takes a complete secret ARN as it is, and refuses a partial one', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pricing/canary-key-AbC123';
    const { template } = synthesize({ [canaryContextKeys.secret]: arn });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'secretsmanager:GetSecretValue', Resource: arn })]) },
    });
    expect(() =>
      synthesize({ [canaryContextKeys.secret]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:pricing/canary-key' }),
    ).toThrow(/complete ARN/);
  });

  it('follows the props before the context', () => {
    expect(synthesize({}, { canary: false }).stack.canary).toBeUndefined();
    expect(synthesize({ stage: 'dev' }, { canary: true, canarySku: 'NUT' }).stack.canary).toBeDefined();
  });
});
