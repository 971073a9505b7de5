// Template tests of what the stack gives the team that runs it: tracing, stage throttling, the dashboard, the alarms on their topics, the operator's policy and the outputs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { powertoolsLayerParameter, powertoolsVersion } from '#lib/stack/constructs/powertools-layer.ts';
import { alarmThresholds } from '#lib/stack/constructs/service-alarms.ts';
import { stageThrottle } from '#lib/stack/constructs/service-api.ts';
import { pricingRouteId } from '#lib/stack/constructs/monitored.ts';
import { requestMetricNames } from '#platform/observability.ts';
import { PricingServiceStack, type PricingServiceStackProps } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext, projectRoot } from '#lib/stack/project.ts';
import { BANDS_LAG_METRIC } from '#shared/bands/lag.ts';
import { canaryMetricNames } from '#shared/canary/run.ts';
import { listPrices } from '#shared/cost/list-prices.ts';
import { webhookHealthMetricNames } from '#shared/webhooks/health-metrics.ts';
import { metricsNamespace } from '#platform/config.ts';
import { queues } from '#platform/queues.ts';
import { table } from '#platform/table/definition.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { tableCallActions } from '#lib/stack/table-access.ts';
import { consoleRoutes, fallbackRoute, routes, scheduledJobs, workers } from '#edge/routes.ts';

function synthesize(props: PricingServiceStackProps = {}) {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new PricingServiceStack(app, 'PricingService', props);
  return { stack, template: Template.fromStack(stack) };
}

const { stack, template } = synthesize();
// Each route, worker and scheduled job has its function, and so do the fallback route and, in production, the canary.
const functionCount = routes.length + consoleRoutes.length + workers.length + scheduledJobs.length + 2;

type Resource = { Type: string; Properties: Record<string, unknown> };
const resourcesOf = (of: Template, type: string) => Object.entries(of.findResources(type)) as Array<[string, Resource]>;
const alarms = () => resourcesOf(template, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
/** The alarms whose metrics, or their math, mention `text`. */
const alarmsAbout = (text: string, of = template) =>
  resourcesOf(of, 'AWS::CloudWatch::Alarm')
    .map(([, alarm]) => alarm.Properties)
    .filter((alarm) => JSON.stringify(alarm).includes(text));

describe('tracing', () => {
  it('every function traces actively and loads the tracer from the Powertools layer of the version the project installs', () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    expect(functions).toHaveLength(functionCount);
    const [parameterId, parameter] = Object.entries(template.toJSON().Parameters as Record<string, { Type: string; Default: string }>).find(
      ([, candidate]) => candidate.Default === powertoolsLayerParameter,
    ) ?? ['', undefined];
    expect(parameter?.Type).toBe('AWS::SSM::Parameter::Value<String>');
    expect(powertoolsLayerParameter).toBe(`/aws/service/powertools/typescript/generic/all/${powertoolsVersion}`);
    for (const [, fn] of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      expect(fn.Properties.Layers).toEqual([{ Ref: parameterId }]);
    }
  });

  it('the layer is the release package.json asks for, so the tracer deployed is the tracer tested', async () => {
    const { readFileSync } = await import('node:fs');
    const manifest = JSON.parse(readFileSync(`${projectRoot}package.json`, 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['@aws-lambda-powertools/tracer']).toBe(`^${powertoolsVersion}`);
  });

  it('the only statements on every resource are X-Ray’s two, which take no other', () => {
    for (const [, policy] of resourcesOf(template, 'AWS::IAM::Policy')) {
      const statements = (policy.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> })
        .Statement;
      for (const statement of statements.filter((candidate) => candidate.Resource === '*')) {
        expect([statement.Action].flat().sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      }
    }
  });

  it('the access log names the Lambda request of each call, which its logs and its trace carry too', () => {
    const stage = resourcesOf(template, 'AWS::ApiGatewayV2::Stage')[0]?.[1];
    const format = (stage?.Properties.AccessLogSettings as { Format: string }).Format;
    expect(JSON.parse(format)).toMatchObject({ integrationRequestId: '$context.integration.requestId' });
  });
});

describe('stage throttling', () => {
  it('every route of the stage is throttled at the chosen rate and burst, and writes route-level metrics', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: {
        ThrottlingRateLimit: stageThrottle.rateLimit,
        ThrottlingBurstLimit: stageThrottle.burstLimit,
        DetailedMetricsEnabled: true,
      },
    });
  });

  it('one route’s rate stays within what one DynamoDB partition takes in writes a second, above ten workspaces at the default rate', () => {
    const partitionWriteUnitsPerSecond = 1000;
    const defaultWorkspaceRate = 100;
    expect(stageThrottle.rateLimit).toBeLessThanOrEqual(partitionWriteUnitsPerSecond);
    expect(stageThrottle.rateLimit).toBeGreaterThanOrEqual(10 * defaultWorkspaceRate);
    expect(stageThrottle.burstLimit).toBeGreaterThanOrEqual(stageThrottle.rateLimit);
  });
});

describe('dashboard', () => {
  const dashboard = resourcesOf(template, 'AWS::CloudWatch::Dashboard')[0]?.[1];
  /** The dashboard's JSON as CloudFormation will join it, each reference to a resource left as a mark. */
  const joined = dashboard?.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const body = joined['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '<ref>')).join('');

  it('the stack has one dashboard, and outputs its name', () => {
    expect(resourcesOf(template, 'AWS::CloudWatch::Dashboard')).toHaveLength(1);
    template.hasOutput('DashboardName', { Value: { Ref: Match.anyValue() } });
  });

  it('shows each route’s requests, errors, p50 and p99 latency, and capacity units per request', () => {
    for (const metric of ['"Count"', '"4xx"', '"5xx"', '"Latency"', 'p50', 'p99']) expect(body).toContain(metric);
    for (const route of routes) expect(body, route.id).toContain(`"Method","${route.method}","Resource","${route.path}"`);
    for (const id of [...routes.map((route) => route.id), fallbackRoute.id, ...workers.map((worker) => worker.id)]) {
      expect(body, id).toContain(`"route","${id}"`);
    }
    expect(body).toContain(requestMetricNames.readUnits);
    expect(body).toContain(requestMetricNames.writeUnits);
  });

  it('prices the service’s metrics at the list prices of the one module that holds them, per 1M priced lines', () => {
    expect(body).toContain(requestMetricNames.pricedLines);
    expect(body).toContain(`"route","${pricingRouteId}"`);
    expect(body).toContain('US$ per 1M priced lines');
    for (const price of Object.values(listPrices)) {
      expect(body).toContain(String(price));
    }
  });

  it('graphs what the route alarms and the webhook alarm read', () => {
    expect(body).toContain('SELECT AVG(\\"5xx\\")');
    expect(body).toContain(`SELECT AVG(\\"${requestMetricNames.overLatencyBudget}\\")`);
    expect(body).toContain(webhookHealthMetricNames.parked);
    expect(body).toContain(webhookHealthMetricNames.disabled);
  });

  it('shows the drain queue’s depth and oldest message, its dead-letter queue, and the bands job’s lag', () => {
    expect(body).toContain('ApproximateNumberOfMessagesVisible');
    expect(body).toContain('ApproximateAgeOfOldestMessage');
    for (const queueId of Object.keys(queues)) expect(body).toContain(`${queueId} dead-letter queue`);
    expect(body).toContain(BANDS_LAG_METRIC);
  });
});

describe('alarms', () => {
  it('the stack outputs a topic for pages and one for tickets, and every alarm and its recovery go to its severity’s', () => {
    const topicIds = resourcesOf(template, 'AWS::SNS::Topic').map(([id]) => id);
    expect(topicIds).toHaveLength(2);
    const [page, ticket] = [stack.alarms.topic, stack.alarms.ticketTopic].map((topic) => stack.resolve(topic.topicArn));
    template.hasOutput('AlarmTopicArn', { Value: page });
    template.hasOutput('TicketTopicArn', { Value: ticket });
    expect(stack.alarms.alarms.length).toBe(alarms().length);
    for (const alarm of alarms()) {
      const severity = /^\[(page|ticket)\] /.exec(String(alarm.AlarmDescription))?.[1];
      expect(severity, String(alarm.AlarmDescription)).toBeDefined();
      const topic = severity === 'page' ? page : ticket;
      expect(alarm.AlarmActions).toEqual([topic]);
      expect(alarm.OKActions).toEqual([topic]);
      expect(alarm.Tags).toContainEqual({ Key: 'severity', Value: severity });
      // Silence is a failure only for a schedule, whose runs are what the alarm counts, for the API's traffic, and for
      // the canary, whose silence is its not running.
      const counted = JSON.stringify(alarm.Metrics ?? alarm.MetricName);
      const silenceFails =
        counted.includes('"Invocations"') ||
        counted.includes(canaryMetricNames.success) ||
        String(alarm.AlarmDescription).includes('received no request');
      expect(alarm.TreatMissingData).toBe(silenceFails ? 'breaching' : 'notBreaching');
      expect(alarm.AlarmDescription).toContain('docs/operations.md');
    }
  });

  it('pages for what callers feel now, and opens tickets for one customer’s endpoint, throttled callers and retried errors', () => {
    const severity = Object.fromEntries(stack.alarms.severities);
    for (const paging of [
      'RouteServerErrors',
      'RouteLatencyOverBudget',
      'DrainDeadLetters',
      'DrainOldestMessageAge',
      'WebhooksOldestMessageAge',
      'BandsLag',
      'PriceCanaryFailing',
    ])
      expect(severity[paging], paging).toBe('page');
    for (const ticket of [
      'WebhooksParkedOrDisabled',
      'CallersRateLimited',
      'TableSystemErrors',
      'TableThrottles',
      'WorkerErrors',
      'WorkerThrottles',
      'ApiNoTraffic',
    ])
      expect(severity[ticket], ticket).toBe('ticket');
  });

  it('a write-back task open past its bound pages, on the age the sweeper reads each minute', () => {
    const [waiting, ...others] = alarmsAbout(requestMetricNames.oldestOpenWriteback);
    expect(others).toEqual([]);
    expect(waiting).toMatchObject({
      Threshold: alarmThresholds.openWritebackSeconds,
      Statistic: 'Maximum',
      Namespace: metricsNamespace,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(stack.alarms.severities.get('WritebackTaskAge')).toBe('page');
  });

  it('callers answered 429 in volume raise a ticket, from the count the handlers write for each', () => {
    const [limited, ...others] = alarmsAbout(requestMetricNames.rateLimited);
    expect(others).toEqual([]);
    expect(limited).toMatchObject({ Threshold: alarmThresholds.rateLimitedRequests, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(JSON.stringify(limited?.Metrics)).toContain(`SUM(\\"${requestMetricNames.rateLimited}\\")`);
  });

  it('an API that receives no request for hours raises a ticket', () => {
    const [silent, ...others] = alarmsAbout('"MetricName":"Count","Namespace":"AWS/ApiGateway"').filter(
      (alarm) => !JSON.stringify(alarm.Metrics).includes('"Resource"'),
    );
    expect(others).toEqual([]);
    expect(silent).toMatchObject({ Threshold: 1, ComparisonOperator: 'LessThanThreshold', TreatMissingData: 'breaching' });
    expect(JSON.stringify(silent?.Metrics)).toContain(`"Period":${alarmThresholds.noTrafficHours * 3600}`);
  });

  it('the topic accepts TLS only', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('one alarm watches every route’s share of 5xx answers, a Metrics Insights query over this API’s routes, so a route added adds none', () => {
    const [alarm, ...others] = alarmsAbout('AVG(\\"5xx\\")');
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({
      Threshold: alarmThresholds.routeServerErrorShare,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
    });
    const query = JSON.stringify(alarm?.Metrics);
    expect(query).toContain('FROM SCHEMA(\\"AWS/ApiGateway\\", \\"ApiId\\", \\"Method\\", \\"Resource\\", \\"Stage\\")');
    expect(query).toContain('GROUP BY \\"Method\\", \\"Resource\\"');
    expect(query).toContain('{"Ref":"ApiHttpApi');
  });

  it('one alarm watches every route’s requests over its latency budget: more than 1% over it is a p99 over it', () => {
    const [alarm, ...others] = alarmsAbout(requestMetricNames.overLatencyBudget);
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({
      Threshold: 0.01,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
    const query = JSON.stringify(alarm?.Metrics);
    expect(query).toContain('GROUP BY \\"route\\"');
    expect(query).toContain(`FROM SCHEMA(\\"${metricsNamespace}\\", \\"route\\", \\"service\\")`);
  });

  it('the workers’ and jobs’ Lambda errors and the messages they fail are summed in alarms of at most 10 metrics', () => {
    const errors = alarmsAbout('"MetricName":"Errors"');
    const read = (alarm: Record<string, unknown>) =>
      (alarm.Metrics as Array<{ MetricStat?: { Metric: { MetricName: string; Dimensions?: Array<{ Name: string; Value: unknown }> } } }>)
        .map((metric) => metric.MetricStat?.Metric)
        .filter((metric) => metric !== undefined);
    const watched = errors.flatMap(read);
    expect(watched.filter((metric) => metric.MetricName === 'Errors')).toHaveLength(workers.length + scheduledJobs.length);
    // Each background function's failed messages, as the worker counts them per route, in the same alarms.
    const failures = watched.filter((metric) => metric.MetricName === requestMetricNames.workerFailures);
    expect(failures.map((metric) => metric.Dimensions?.find((dimension) => dimension.Name === 'route')?.Value).sort()).toEqual(
      [...workers, ...scheduledJobs].map((fn) => fn.id).sort(),
    );
    for (const alarm of errors) {
      expect(read(alarm).length).toBeLessThanOrEqual(10);
      expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    }
  });

  it('the workers’ and jobs’ throttles are summed per function of the service, none account-wide', () => {
    const watching = alarmsAbout('"MetricName":"Throttles"');
    const watched = watching.flatMap((alarm) => (alarm.Metrics as Array<{ MetricStat?: unknown }>).filter((metric) => metric.MetricStat));
    expect(watched).toHaveLength(workers.length + scheduledJobs.length);
    for (const metric of watched) expect(JSON.stringify(metric)).toContain('"Name":"FunctionName"');
    for (const alarm of watching) {
      expect((alarm.Metrics as Array<{ MetricStat?: unknown }>).filter((metric) => metric.MetricStat).length).toBeLessThanOrEqual(10);
      expect(alarm).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    }
  });

  it('a scheduled job that does not run within three of its intervals raises an alarm, its silence counting as a miss', () => {
    const missed = alarmsAbout('"MetricName":"Invocations"');
    expect(missed).toHaveLength(scheduledJobs.length);
    for (const [index, job] of scheduledJobs.entries()) {
      expect(missed[index]).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'LessThanThreshold',
        TreatMissingData: 'breaching',
        Metrics: [
          expect.objectContaining({
            MetricStat: expect.objectContaining({ Period: alarmThresholds.scheduleMinutes(job.everyMinutes) * 60 }),
          }),
        ],
      });
    }
  });

  it('any message in any dead-letter queue raises an alarm, and so does a message waiting too long in either work queue', () => {
    const deadLetters = alarmsAbout('ApproximateNumberOfMessagesVisible');
    expect(deadLetters).toHaveLength(Object.keys(queues).length);
    for (const alarm of deadLetters) expect(alarm).toMatchObject({ Threshold: 1, Statistic: 'Maximum' });
    const oldest = alarmsAbout('ApproximateAgeOfOldestMessage');
    expect(oldest.map((alarm) => alarm.Threshold).sort()).toEqual(Object.values(alarmThresholds.oldestMessageSeconds).sort());
    for (const alarm of oldest) expect(alarm).toMatchObject({ Statistic: 'Maximum' });
  });

  it('a bands lag past its bound, and a parked delivery or a disabled endpoint, raise alarms', () => {
    const [lag, ...lags] = alarmsAbout(BANDS_LAG_METRIC);
    expect(lags).toEqual([]);
    expect(lag).toMatchObject({ Threshold: alarmThresholds.bandsLagSeconds, Statistic: 'Maximum', Namespace: metricsNamespace });
    const [webhooks, ...others] = alarmsAbout(webhookHealthMetricNames.parked);
    expect(others).toEqual([]);
    expect(JSON.stringify(webhooks)).toContain(webhookHealthMetricNames.disabled);
    expect(webhooks).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('a batch committed and not drained past its bound raises an alarm, on the age the sweeper reads each minute', () => {
    const [undrained, ...others] = alarmsAbout(requestMetricNames.oldestUndrainedBatch);
    expect(others).toEqual([]);
    expect(undrained).toMatchObject({
      Threshold: alarmThresholds.undrainedBatchSeconds,
      Statistic: 'Maximum',
      Namespace: metricsNamespace,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(undrained?.AlarmDescription).toContain('docs/operations.md');
  });

  it('DynamoDB throttles of the table and of each index, and system errors over every operation the service calls, raise alarms', () => {
    const throttles = alarmsAbout('ThrottleEvents');
    expect(throttles.length).toBeGreaterThan(0);
    const read = (alarm: Record<string, unknown>) =>
      (alarm.Metrics as Array<{ MetricStat?: unknown }>).filter((metric) => metric.MetricStat);
    for (const alarm of throttles) expect(read(alarm).length).toBeLessThanOrEqual(10);
    // The table and each index, reads and writes: the indexes throttle apart from the table, and are counted apart.
    expect(throttles.flatMap(read)).toHaveLength(2 + 2 * table.indexes.length);
    for (const index of table.indexes) expect(JSON.stringify(throttles), index.name).toContain(`"Value":"${index.name}"`);
    const [systemErrors, ...others] = alarmsAbout('SystemErrors');
    expect(others).toEqual([]);
    const metrics = read(systemErrors as Record<string, unknown>);
    // An alarm's math may read at most 10 metrics.
    expect(metrics.length).toBeGreaterThan(0);
    expect(metrics.length).toBeLessThanOrEqual(10);
  });
});

describe('the operator’s policy', () => {
  const [[policyId, policy] = ['', undefined]] = resourcesOf(template, 'AWS::IAM::ManagedPolicy');
  const statements = () =>
    (policy?.Properties.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement;
  const actions = () => statements().flatMap((statement) => [statement.Action].flat());

  it('is an output an operator attaches, to run the admin CLI with --aws', () => {
    template.hasOutput('OperatorPolicyArn', { Value: { Ref: policyId } });
  });

  it('holds the catalogue’s table calls, the dead-letter handling of the queues and the webhook data key, and nothing else', () => {
    expect(actions()).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem']));
    expect(actions()).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:SendMessage', 'sqs:DeleteMessage', 'secretsmanager:GetSecretValue']),
    );
    for (const action of actions()) expect(action, action).toMatch(/^(dynamodb|sqs|secretsmanager):[A-Za-z]+$/);
    // The table's actions are the catalogue's, whose run-once backfills Scan: no more, no fewer.
    const catalogued = new Set(accessPatterns.flatMap((pattern) => pattern.calls).flatMap((call) => Object.values(tableCallActions[call])));
    expect(new Set(actions().filter((action) => action.startsWith('dynamodb:')))).toEqual(catalogued);
    expect(actions()).not.toContain('sqs:PurgeQueue');
    expect(JSON.stringify(statements())).not.toContain('"Resource":"*"');
  });
});

describe('the outputs', () => {
  it('are each named in the README, which the runbooks send operators to', () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const outputs = Object.keys(template.toJSON().Outputs as Record<string, unknown>);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'FunctionLogGroup',
        'AccessLogGroup',
        'AlarmTopicArn',
        'TicketTopicArn',
        'OperatorPolicyArn',
        'CanaryKeySecret',
      ]),
    );
    for (const output of outputs) expect(readme, output).toContain(`\`${output}\``);
  });
});
