// Template tests of the stack's room to grow: its resources against CloudFormation's 500, what one more route costs, and what queues and logs keep.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { logRetention } from '#lib/stack/constructs/service-function.ts';
import { PricingServiceStack, type PricingServiceStackProps } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { queues, WORK_QUEUE_RETENTION_DAYS } from '#platform/queues.ts';
import { type HttpRoute, routes } from '#edge/routes.ts';

/** Far enough under CloudFormation's 500 for the routes and workers the open issues add. */
const MAX_RESOURCES = 300;
/**
 * A GET route's function, its API Gateway route and integration, the permission that lets API Gateway call it, and
 * its HEAD route with that route's permission (HEAD is served wherever GET is, by the same integration).
 */
const MAX_RESOURCES_PER_ROUTE = 6;

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

function resourcesOf(props: PricingServiceStackProps = {}): Resources {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(new PricingServiceStack(app, 'PricingService', props)).toJSON().Resources as Resources;
}

const today = resourcesOf();
/** The canary (on by default in production) is a fixed few resources, whatever the number of routes: counted apart. */
const withoutCanary = resourcesOf({ canary: false });
const MAX_CANARY_RESOURCES = 7;
/** A route like one that exists: its access profile, and so its role, is there already. */
const existing = routes.find((route) => route.id === 'getWebhookEndpoint') as HttpRoute;
const withOneMore = resourcesOf({ routes: [...routes, { ...existing, id: 'getThing', path: '/v1/things/{thingId}' }] });
const added = Object.keys(withOneMore)
  .filter((id) => !(id in today))
  .map((id) => withOneMore[id]?.Type ?? '');
const count = (resources: Resources, type: string) => Object.values(resources).filter((resource) => resource.Type === type).length;

describe('headroom', () => {
  it(`today's routes, workers and jobs fit in ${MAX_RESOURCES} resources`, () => {
    expect(Object.keys(withoutCanary).length).toBeLessThanOrEqual(MAX_RESOURCES);
  });

  it(`the canary adds at most ${MAX_CANARY_RESOURCES}: its function, role, policy, schedule, permission, key secret and alarm`, () => {
    const canary = Object.keys(today).filter((id) => !(id in withoutCanary));
    expect(canary.length).toBeLessThanOrEqual(MAX_CANARY_RESOURCES);
    expect(Object.keys(today).length).toBeLessThanOrEqual(MAX_RESOURCES + MAX_CANARY_RESOURCES);
  });

  it('a route added adds no alarm, no log group and no dashboard', () => {
    expect(added).not.toContain('AWS::CloudWatch::Alarm');
    expect(added).not.toContain('AWS::Logs::LogGroup');
    expect(added).not.toContain('AWS::CloudWatch::Dashboard');
    expect(count(withOneMore, 'AWS::CloudWatch::Alarm')).toBe(count(today, 'AWS::CloudWatch::Alarm'));
  });

  // Roles and policies are one per access profile: a route of a profile that exists adds neither.
  it(`a GET route added adds at most ${MAX_RESOURCES_PER_ROUTE} resources, its HEAD route among them`, () => {
    expect(added.sort()).toEqual(
      [
        'AWS::ApiGatewayV2::Integration',
        'AWS::ApiGatewayV2::Route',
        'AWS::ApiGatewayV2::Route',
        'AWS::Lambda::Function',
        'AWS::Lambda::Permission',
        'AWS::Lambda::Permission',
      ].sort(),
    );
    expect(added.length).toBeLessThanOrEqual(MAX_RESOURCES_PER_ROUTE);
  });
});

describe('retention', () => {
  it('every function logs to the one function log group, whose retention is set', () => {
    const functions = Object.values(today).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const groups = new Set(functions.map((fn) => JSON.stringify((fn.Properties?.LoggingConfig as { LogGroup: unknown }).LogGroup)));
    expect(groups.size).toBe(1);
    const [group] = [...groups].map((text) => (JSON.parse(text) as { Ref: string }).Ref);
    expect(today[group ?? '']?.Properties?.RetentionInDays).toBe(logRetention);
  });

  it('the work queues and their dead-letter queues keep a message 14 days, SQS’s longest', () => {
    expect(WORK_QUEUE_RETENTION_DAYS).toBe(14);
    const retentions = Object.values(today)
      .filter((resource) => resource.Type === 'AWS::SQS::Queue')
      .map((queue) => queue.Properties?.MessageRetentionPeriod);
    expect(retentions).toHaveLength(2 * Object.keys(queues).length);
    for (const retention of retentions) expect(retention).toBe(14 * 24 * 60 * 60);
  });
});
