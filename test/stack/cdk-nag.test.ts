// The cdk-nag AwsSolutions rules against the stack: no unacknowledged error, and every acknowledgement narrow.
import { App, type Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import cdkNag from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { fakeReadRoute, fakeWorker } from './fixtures.ts';
import { PricingServiceStack } from '#lib/stack/pricing-service-stack.ts';
import { consoleRoutes, routes } from '#edge/routes.ts';

function buildStack(stage?: string, kmsKey?: string) {
  const app = new App({
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...(stage ? { stage } : {}), ...(kmsKey ? { kmsKey } : {}) },
  });
  const stack = new PricingServiceStack(app, 'PricingService', {
    routes: [...routes, fakeReadRoute],
    workers: [fakeWorker],
  });
  return { app, stack };
}

function errorsOf(stack: Stack) {
  const report = new cdkNag.AwsSolutionsChecks().validateScope(stack);
  return report.violations
    .filter((violation) => violation.severity === 'error')
    .map((violation) => ({
      rule: violation.ruleName,
      resources: violation.violatingResources.map((resource) => resource.constructPath),
    }));
}

describe('cdk-nag AwsSolutions', () => {
  it.each([
    { name: 'production', stage: undefined, kmsKey: undefined },
    { name: 'dev', stage: 'dev', kmsKey: undefined },
    { name: 'customer-managed key', stage: undefined, kmsKey: 'new' },
  ])('finds no unacknowledged error in the $name stack', ({ stage, kmsKey }) => {
    const { stack } = buildStack(stage, kmsKey);
    expect(errorsOf(stack)).toEqual([]);
  });

  it('lets a synth with the rules registered as a validation plugin succeed, with no error annotation', () => {
    const { app, stack } = buildStack();
    Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
    expect(Annotations.fromStack(stack).findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });

  it('really checks this stack: a bare queue added to it is reported', () => {
    const { stack } = buildStack();
    new Queue(stack, 'BareQueue');
    expect(errorsOf(stack).map((error) => error.rule)).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });

  it('acknowledges findings only on the resources they concern, each wildcard by name, each with a reason', () => {
    const { app, stack } = buildStack();
    const acknowledgements = stack.node.findAll().flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) =>
          Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
            path: construct.node.path,
            id: id.replace(/^annotation::/i, ''),
            reason,
          })),
        ),
    );
    expect(app.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)).toEqual([]);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const acknowledgement of acknowledgements) {
      expect(acknowledgement.path).not.toBe(stack.node.path);
      expect(acknowledgement.id).toMatch(/^AwsSolutions-(APIG4|SMG4|IAM5\[Resource::<\w+\.Arn>\/index\/\*\]|IAM5\[Resource::\*\])$/);
      expect(acknowledgement.reason.length).toBeGreaterThan(40);
    }
    // The secrets left unrotated: the webhook data key (rotating it would strand every sealed signing secret) and the
    // canary's API key, which the admin CLI makes and revokes, not Secrets Manager.
    expect(acknowledgements.filter((a) => a.id === 'AwsSolutions-SMG4').map((a) => a.path)).toEqual([
      `${stack.node.path}/WebhookDataKey`,
      `${stack.node.path}/Canary/KeySecret`,
    ]);
    // The gateway-authorizer finding is acknowledged route by route, never on the whole API.
    const apig4Paths = acknowledgements.filter((a) => a.id === 'AwsSolutions-APIG4').map((a) => a.path);
    expect(apig4Paths.every((path) => /\/Api\/\w+Route$/.test(path))).toBe(true);
    // Each route (the fake read route among them), its HEAD beside each GET, and the fallback's.
    const gets = [...routes, fakeReadRoute, ...consoleRoutes].filter((route) => route.method === 'GET').length;
    expect(apig4Paths).toHaveLength(routes.length + consoleRoutes.length + gets + 2);
    // X-Ray's resource wildcard is acknowledged on each access profile's role and the canary's alone; the stack tests
    // check what it allows.
    const xrayPaths = acknowledgements.filter((a) => a.id === 'AwsSolutions-IAM5[Resource::*]').map((a) => a.path);
    expect(xrayPaths).toHaveLength(stack.roles.size + 1);
    expect(xrayPaths.every((path) => /\/AccessRoles\/Role[0-9a-f]{10}$|\/Canary\/Role$/.test(path))).toBe(true);
    // The index wildcard only on the roles of profiles that query an index, and on the operator's policy.
    const indexPaths = acknowledgements.filter((a) => a.id.endsWith('/index/*]')).map((a) => a.path);
    const operatorPath = `${stack.node.path}/Operator/Policy`;
    expect(indexPaths).toContain(operatorPath);
    const rolePaths = indexPaths.filter((path) => path !== operatorPath);
    expect(rolePaths.length).toBeGreaterThan(0);
    expect(rolePaths.length).toBeLessThan(stack.roles.size);
    expect(rolePaths.every((path) => xrayPaths.includes(path))).toBe(true);
  });
});
