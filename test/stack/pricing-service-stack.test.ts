// Template tests of the pricing service stack: what each definition in shared/ turns into, and what it is allowed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FunctionBundle } from '#lib/stack/bundles.ts';
import { deployedBundles } from '../deployed-bundles.ts';
import { functionBundling, logRetention } from '#lib/stack/constructs/service-function.ts';
import { buildEvent } from '#lib/local/gateway.ts';
import { createLambdaContext } from '#lib/local/lambda-context.ts';
import { cdkJsonContext, projectRoot } from '#lib/stack/project.ts';
import { fakePatterns, fakeReadRoute, fakeWorker } from './fixtures.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { tableAccessOf } from '#lib/stack/table-access.ts';
import { PricingServiceStack, type PricingServiceStackProps, stackNameFor } from '#lib/stack/pricing-service-stack.ts';
import { environmentNames, metricsNamespace, serviceName } from '#platform/config.ts';
import { queues, VISIBILITY_TO_TIMEOUT_RATIO } from '#platform/queues.ts';
import { consoleRoutes, fallbackRoute, type HttpRoute, routeKey, routes, scheduledJobs, workers } from '#edge/routes.ts';
import { table as tableDefinition } from '#platform/table/definition.ts';
import { dataKeySecretIdEnvironmentName } from '#shared/webhooks/secrets.ts';

interface SynthOptions extends PricingServiceStackProps {
  readonly stage?: string;
  /** Real esbuild bundling; every other test skips it to stay fast. */
  readonly bundle?: boolean;
}

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

function synthesize(options: SynthOptions = {}) {
  const { stage, bundle, ...props } = options;
  const outdir = mkdtempSync(join(tmpdir(), 'pricing-stack-'));
  outdirs.push(outdir);
  const app = new App({
    outdir,
    context: {
      ...cdkJsonContext(),
      ...(bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...(stage ? { stage } : {}),
    },
  });
  const stack = new PricingServiceStack(app, 'PricingService', props);
  return { outdir, stack, template: Template.fromStack(stack) };
}

const defaultSynth = synthesize();
const extendedSynth = synthesize({
  routes: [...routes, fakeReadRoute],
  workers: [fakeWorker],
  accessPatterns: [...accessPatterns, ...fakePatterns],
});
const defaultTemplate = defaultSynth.template;
const extendedTemplate = extendedSynth.template;

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> } & Record<string, unknown>>;

function resourcesOf(template: Template): Resources {
  return template.toJSON().Resources as Resources;
}

function onlyResource(template: Template, type: string, props?: object): [string, Resources[string]] {
  const found = Object.entries(template.findResources(type, props ? { Properties: props } : undefined));
  expect(found, `one ${type} matching ${JSON.stringify(props)}`).toHaveLength(1);
  return found[0] as [string, Resources[string]];
}

/** The logical id of the Lambda function an API Gateway route key is integrated with. */
function functionBehindRoute(template: Template, key: string): string {
  const [, route] = onlyResource(template, 'AWS::ApiGatewayV2::Route', { RouteKey: key });
  const target = route.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  const integration = resourcesOf(template)[target['Fn::Join'][1][1].Ref];
  const uri = integration?.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] };
  return uri['Fn::GetAtt'][0];
}

function functionProperties(template: Template, functionId: string): Record<string, unknown> {
  const fn = resourcesOf(template)[functionId];
  expect(fn?.Type).toBe('AWS::Lambda::Function');
  return fn?.Properties ?? {};
}

function environmentOf(template: Template, functionId: string): Record<string, unknown> {
  const environment = functionProperties(template, functionId).Environment as { Variables: Record<string, unknown> };
  return environment.Variables;
}

interface Statement {
  readonly Action: string | string[];
  readonly Effect: string;
  readonly Resource: unknown;
}

/** Every statement of every policy attached to the function's role, plus its managed policies. */
function permissionsOf(template: Template, functionId: string) {
  const roleId = (functionProperties(template, functionId).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const role = resourcesOf(template)[roleId];
  const statements = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
  const actions = statements.flatMap((statement) => [statement.Action].flat());
  return { statements, actions, managedPolicies: role?.Properties.ManagedPolicyArns };
}

/** The event source mapping fed by a queue (the drain queue unless named), and the function it feeds. */
function workerMapping(template: Template, queueLogicalId = drainQueueId()): Resources[string] {
  const fed = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter(
    (mapping) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [queueLogicalId, 'Arn'] }),
  );
  expect(fed, `one event source mapping of ${queueLogicalId}`).toHaveLength(1);
  return fed[0] as Resources[string];
}

function functionIdOfWorker(template: Template, queueLogicalId = drainQueueId()): string {
  return (workerMapping(template, queueLogicalId).Properties.FunctionName as { Ref: string }).Ref;
}

/** Both synths build the table and queues at the same construct paths, so their logical ids agree. */
const { stack } = defaultSynth;
const logicalIdOf = (construct: IConstruct) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
const tableId = () => logicalIdOf(stack.table);
const drainQueue = () => {
  const queue = stack.queues.get('drain');
  if (!queue) throw new Error('no drain queue');
  return queue;
};
const drainQueueId = () => logicalIdOf(drainQueue().queue);
const drainDeadLetterQueueId = () => logicalIdOf(drainQueue().deadLetterQueue);
const webhooksQueueId = () => logicalIdOf((stack.queues.get('webhooks') as NonNullable<ReturnType<typeof stack.queues.get>>).queue);

describe('routes and functions', () => {
  it('every route in the route table has its own arm64 nodejs24.x function', () => {
    const functionIds = routes.map((route) => {
      const functionId = functionBehindRoute(defaultTemplate, routeKey(route));
      expect(functionProperties(defaultTemplate, functionId)).toMatchObject({
        Architectures: ['arm64'],
        Runtime: 'nodejs24.x',
        MemorySize: route.memoryMb,
        Timeout: route.timeoutSeconds,
        Handler: 'index.handler',
      });
      return functionId;
    });
    expect(new Set(functionIds).size).toBe(routes.length);
  });

  it('every GET route, the console’s included, has a HEAD route to the same function, and no other route has one', () => {
    const rows = [...routes, ...consoleRoutes];
    for (const route of rows.filter((row) => row.method === 'GET')) {
      expect(functionBehindRoute(defaultTemplate, `HEAD ${route.path}`)).toBe(functionBehindRoute(defaultTemplate, routeKey(route)));
    }
    const heads = Object.values(defaultTemplate.findResources('AWS::ApiGatewayV2::Route')).filter((route) =>
      String(route.Properties.RouteKey).startsWith('HEAD '),
    );
    expect(heads).toHaveLength(rows.filter((row) => row.method === 'GET').length);
  });

  it('a route added to the table gets its route and function without any change to the stack', () => {
    const functionId = functionBehindRoute(extendedTemplate, routeKey(fakeReadRoute));
    expect(functionProperties(extendedTemplate, functionId)).toMatchObject({
      Architectures: ['arm64'],
      Runtime: 'nodejs24.x',
      Timeout: fakeReadRoute.timeoutSeconds,
    });
  });

  it('any method and path no route claims goes to the $default route and its fallback function', () => {
    const functionId = functionBehindRoute(defaultTemplate, '$default');
    expect(functionProperties(defaultTemplate, functionId)).toMatchObject({
      Architectures: ['arm64'],
      Runtime: 'nodejs24.x',
      MemorySize: fallbackRoute.memoryMb,
      Timeout: fallbackRoute.timeoutSeconds,
    });
    const routeFunctions = routes.map((route) => functionBehindRoute(defaultTemplate, routeKey(route)));
    expect(routeFunctions).not.toContain(functionId);
  });

  it('every integration hands the Lambda the 2.0 event payload', () => {
    const integrations = Object.values(defaultTemplate.findResources('AWS::ApiGatewayV2::Integration'));
    expect(integrations).toHaveLength(routes.length + consoleRoutes.length + 1);
    for (const integration of integrations) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    }
  });

  it('every function carries the Powertools settings', () => {
    for (const fn of Object.values(extendedTemplate.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.Environment.Variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        POWERTOOLS_LOG_LEVEL: 'INFO',
      });
    }
  });

  it('a function learns the table name and queue URLs only when its access names them', () => {
    const fallback = environmentOf(defaultTemplate, functionBehindRoute(defaultTemplate, '$default'));
    expect(fallback).not.toHaveProperty(environmentNames.tableName);
    expect(fallback).not.toHaveProperty(environmentNames.drainQueueUrl);

    const reader = environmentOf(extendedTemplate, functionBehindRoute(extendedTemplate, routeKey(fakeReadRoute)));
    expect(reader[environmentNames.tableName]).toEqual({ Ref: tableId() });
    expect(reader[environmentNames.drainQueueUrl]).toEqual({ Ref: drainQueueId() });

    for (const route of routes) {
      const environment = environmentOf(defaultTemplate, functionBehindRoute(defaultTemplate, routeKey(route)));
      const access: HttpRoute['access'] = route.access;
      expect(environmentNames.tableName in environment).toBe(access.table !== undefined);
      expect(environmentNames.drainQueueUrl in environment).toBe(access.sendTo?.includes('drain') ?? false);
    }
  });

  it('handlers are bundled as minified ESM for node24 with the AWS SDK inside and a require shim', () => {
    expect(functionBundling).toMatchObject({
      format: 'esm',
      target: 'node24',
      minify: true,
      sourceMap: false,
      bundleAwsSDK: true,
      mainFields: ['module', 'main'],
    });
    expect(functionBundling.banner).toMatch(/createRequire.*import\.meta\.url/);
  });
});

describe('bundling', () => {
  let bundled: FunctionBundle[] = [];
  /** The real synth's bundles, shared with the integration tests that invoke them (test/deployed-bundles.ts). */
  const realBundles = (): FunctionBundle[] => bundled;
  // esbuild runs for every function: about a minute on a quiet two-core machine, and several on a loaded one. Counts,
  // sizes and files are what these tests judge, never how long the bundling took.
  beforeAll(async () => {
    bundled = await deployedBundles();
  }, 600_000);
  /** The files a function's row names; only routes name any. */
  const filesOf = (id: string): Readonly<Record<string, string>> => {
    const rows: ReadonlyArray<Pick<HttpRoute, 'id' | 'files'>> = [...routes, ...consoleRoutes];
    const route = rows.find((candidate) => candidate.id === id);
    return route?.files ?? {};
  };

  it('a real synth bundles each handler into one minified ES module that defines require, without a source map', () => {
    const bundles = realBundles();
    expect(bundles).toHaveLength(routes.length + consoleRoutes.length + workers.length + scheduledJobs.length + 1);
    for (const bundle of bundles) {
      const code = readFileSync(bundle.path, 'utf8');
      expect(code.startsWith(functionBundling.banner ?? ''), bundle.id).toBe(true);
      // Minified output is a few dozen very long lines, not one statement per line. The console's pages keep the line
      // breaks of their HTML templates, which are text a minifier may not change.
      if (!consoleRoutes.some((route) => route.id === bundle.id)) expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
      expect(code.trimEnd()).not.toMatch(/sourceMappingURL=\S+$/);
    }
  });

  it('keeps every API route’s bundle within 400 KB, every console route’s within 420 KB and every worker’s within 440 KB, the tracer and its X-Ray SDK left to the Powertools layer', () => {
    // An ERP waits on an API route's cold start in its quoting path. A console route carries its pages, and the
    // recommendations' carries the approval's publication besides (its outbox sends on the webhooks queue: about 411
    // KB); a person waits on it now and then. A worker's is paid once per queue batch, and the drain carries the whole
    // ingest pipeline, the bands job and the pricing engine (about 411 KB).
    const workerIds = new Set<string>([...workers, ...scheduledJobs].map((worker) => worker.id));
    const consoleIds = new Set<string>(consoleRoutes.map((route) => route.id));
    const capKb = (id: string) => (workerIds.has(id) ? 440 : consoleIds.has(id) ? 420 : 400);
    for (const bundle of realBundles()) {
      expect(bundle.bytes, bundle.id).toBeLessThanOrEqual(capKb(bundle.id) * 1024);
      const code = readFileSync(bundle.path, 'utf8');
      expect(code.includes('aws-xray-sdk-core') || code.includes('AWSXRay'), `${bundle.id} carries the X-Ray SDK`).toBe(false);
    }
  });

  it('packages beside each bundle exactly the files its row names, as the project has them, and nothing else', () => {
    for (const bundle of realBundles()) {
      const folder = dirname(bundle.path);
      const files = filesOf(bundle.id);
      const packaged = readdirSync(folder, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
        .sort();
      expect(packaged, bundle.id).toEqual(['index.mjs', ...Object.keys(files)].sort());
      for (const [packagePath, projectPath] of Object.entries(files)) {
        expect(readFileSync(join(folder, packagePath)).equals(readFileSync(join(projectRoot, projectPath))), packagePath).toBe(true);
      }
    }
  });

  it('keeps the console out of every function but the console’s own: the API’s functions do not grow because of it', () => {
    const consoleIds: readonly string[] = consoleRoutes.map((route) => route.id);
    for (const bundle of realBundles()) {
      const code = readFileSync(bundle.path, 'utf8');
      // The console's policy is in every console function, and in no other.
      const carriesConsole = ['console_session', 'CONSOLESESSION#', 'CONSOLEUSER#', "form-action 'self'"].some((marker) =>
        code.includes(marker),
      );
      expect(carriesConsole, `${bundle.id} carries the console`).toBe(consoleIds.includes(bundle.id));
    }
  });

  it('keeps each OpenAPI document in the bundle of the route that serves it alone, and Redoc in no bundle', () => {
    const documents = { openapiV1: 'openapi/api-v1.json', openapiOverview: 'openapi/overview-v1.json' } as const;
    /** What only a bundle carrying the document holds: its first path as an object key, as esbuild writes a JSON import. */
    const markerOf = (file: string) => {
      const document = JSON.parse(readFileSync(join(projectRoot, file), 'utf8'));
      const first = Object.keys(document.paths ?? {})[0];
      return first === undefined ? `title:${JSON.stringify(document.info.title)}` : `${JSON.stringify(first)}:{`;
    };
    const markers = Object.fromEntries(Object.entries(documents).map(([id, file]) => [id, markerOf(file)]));
    for (const bundle of realBundles()) {
      const code = readFileSync(bundle.path, 'utf8');
      for (const [id, marker] of Object.entries(markers))
        expect(code.includes(marker), `${bundle.id} carries ${id}'s document`).toBe(bundle.id === id);
      expect(/\bopenapi:"3\./.test(code), `${bundle.id} carries an OpenAPI document`).toBe(bundle.id in documents);
      expect(code.includes('API docs by Redocly'), `${bundle.id} carries Redoc`).toBe(false);
    }
    const priceLines = realBundles().find((bundle) => bundle.id === 'priceLines');
    expect(priceLines && readFileSync(priceLines.path, 'utf8')).not.toMatch(/\bopenapi:"3\./);
  });

  it('the open routes answer from their deployed packages alone: the documents, the page and Redoc', async () => {
    // Quiet, as in the integration run: the bundles log their cost lines at INFO and publish EMF metrics.
    process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    const invoke = async (id: string, url: string, pathParameters?: Record<string, string>) => {
      const bundle = realBundles().find((candidate) => candidate.id === id);
      const route = routes.find((candidate) => candidate.id === id);
      if (!bundle || !route) throw new Error(`no bundle for ${id}`);
      const { handler } = await import(pathToFileURL(bundle.path).href);
      const event = buildEvent(
        { method: 'GET', url, headers: { host: 'api.example.com' }, body: Buffer.alloc(0), sourceIp: '203.0.113.9' },
        routeKey(route),
        pathParameters,
      );
      return handler(event, createLambdaContext({ name: id, memoryMb: route.memoryMb, timeoutSeconds: route.timeoutSeconds }));
    };

    const v1 = await invoke('openapiV1', '/api/v1/openapi.json');
    expect(v1.statusCode).toBe(200);
    expect(JSON.parse(v1.body)).toEqual(JSON.parse(readFileSync(join(projectRoot, 'openapi/api-v1.json'), 'utf8')));
    const overview = await invoke('openapiOverview', '/v1/openapi.json');
    expect(JSON.parse(overview.body)).toEqual(JSON.parse(readFileSync(join(projectRoot, 'openapi/overview-v1.json'), 'utf8')));

    const page = await invoke('apiReference', '/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const redocUrl = /src="(\/docs\/redoc\.standalone\.js\?v=\w+)"/.exec(page.body)?.[1] ?? '';
    const redoc = await invoke('apiReferenceAsset', redocUrl, { asset: 'redoc.standalone.js' });
    expect(redoc.statusCode).toBe(200);
    expect(redoc.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const served = Buffer.from(redoc.body, redoc.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
    expect(served.length).toBeGreaterThan(500_000);
    expect(served).toContain('Redoc');
  });

  it('the console answers from its deployed packages alone: the sign-in page links its stylesheet, which is served', async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'WARN';
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    const invoke = async (id: string, url: string, pathParameters?: Record<string, string>) => {
      const bundle = realBundles().find((candidate) => candidate.id === id);
      const route = consoleRoutes.find((candidate) => candidate.id === id);
      if (!bundle || !route) throw new Error(`no bundle for ${id}`);
      const { handler } = await import(pathToFileURL(bundle.path).href);
      const event = buildEvent(
        {
          method: route.method,
          url,
          headers: { host: 'api.example.com', 'x-forwarded-proto': 'https' },
          body: Buffer.alloc(0),
          sourceIp: '203.0.113.9',
        },
        routeKey(route),
        pathParameters,
      );
      return handler(event, createLambdaContext({ name: id, memoryMb: route.memoryMb, timeoutSeconds: route.timeoutSeconds }));
    };
    const page = await invoke('consoleSignInPage', '/console/sign-in');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.cookies[0]).toMatch(/; HttpOnly; SameSite=Strict; .*; Secure$/);
    const stylesheet = /<link rel="stylesheet" href="\/console\/assets\/([^"]+)"/.exec(page.body)?.[1] ?? '';
    const css = await invoke('consoleAsset', `/console/assets/${stylesheet}`, { asset: stylesheet });
    expect(css.statusCode).toBe(200);
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(css.body, 'base64').equals(readFileSync(join(projectRoot, 'shared/edge/console/console.css')))).toBe(true);
  });

  it('the stack tests skip esbuild: an empty bundling-stacks context leaves no bundle in the assembly', () => {
    const { outdir } = synthesize();
    expect(existsSync(outdir)).toBe(true);
    expect(readdirSync(outdir).filter((name) => name.startsWith('asset.'))).toEqual([]);
  });
});

describe('workers', () => {
  it('a worker gets its own function, fed by its queue with partial batch failure reporting', () => {
    const [, mapping] = onlyResource(extendedTemplate, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toMatchObject({
      BatchSize: fakeWorker.batchSize,
      ScalingConfig: { MaximumConcurrency: fakeWorker.maxConcurrency },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [drainQueueId(), 'Arn'] },
    });
    expect(functionProperties(extendedTemplate, functionIdOfWorker(extendedTemplate))).toMatchObject({
      Architectures: ['arm64'],
      Runtime: 'nodejs24.x',
      MemorySize: fakeWorker.memoryMb,
    });
  });

  it("a worker's timeout is its queue's consumer timeout, and the queue hides a message for at least six times that", () => {
    const timeout = functionProperties(extendedTemplate, functionIdOfWorker(extendedTemplate)).Timeout as number;
    expect(timeout).toBe(queues[fakeWorker.queue].consumerTimeoutSeconds);
    const queue = resourcesOf(extendedTemplate)[drainQueueId()];
    expect(queue?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('a worker may consume from its queue, and gets table access only as its patterns say', () => {
    const { statements, actions } = permissionsOf(extendedTemplate, functionIdOfWorker(extendedTemplate));
    const consume = statements.find((statement) => [statement.Action].flat().includes('sqs:ReceiveMessage'));
    expect(consume?.Resource).toEqual({ 'Fn::GetAtt': [drainQueueId(), 'Arn'] });
    expect(actions).toEqual(expect.arrayContaining(['sqs:DeleteMessage', 'dynamodb:PutItem']));
    expect(actions.filter((action) => action.startsWith('dynamodb:'))).toEqual(['dynamodb:PutItem']);
    expect(actions).not.toContain('sqs:SendMessage');
  });

  it('the drain worker takes one job at a time, at most ten at once, and may send only to its queues and the webhooks queue', () => {
    const mapping = workerMapping(defaultTemplate);
    expect(mapping.Properties).toMatchObject({
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 10 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      EventSourceArn: { 'Fn::GetAtt': [drainQueueId(), 'Arn'] },
    });
    const functionId = functionIdOfWorker(defaultTemplate);
    const sends = permissionsOf(defaultTemplate, functionId).statements.filter((statement) =>
      [statement.Action].flat().includes('sqs:SendMessage'),
    );
    const targets = sends.flatMap((statement) => [statement.Resource].flat());
    expect(targets).toHaveLength(3);
    expect(targets).toEqual(
      expect.arrayContaining([
        { 'Fn::GetAtt': [drainQueueId(), 'Arn'] },
        { 'Fn::GetAtt': [drainDeadLetterQueueId(), 'Arn'] },
        { 'Fn::GetAtt': [webhooksQueueId(), 'Arn'] },
      ]),
    );
    const environment = environmentOf(defaultTemplate, functionId);
    expect(environment[environmentNames.drainQueueUrl]).toEqual({ Ref: drainQueueId() });
    expect(environment[environmentNames.drainDeadLetterQueueUrl]).toEqual({ Ref: drainDeadLetterQueueId() });
  });

  it('the webhook worker takes ten messages at a time, at most ten invocations at once, and sends only to its own queue', () => {
    const mapping = workerMapping(defaultTemplate, webhooksQueueId());
    expect(mapping.Properties).toMatchObject({
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 10 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const functionId = functionIdOfWorker(defaultTemplate, webhooksQueueId());
    const { statements } = permissionsOf(defaultTemplate, functionId);
    const sends = statements.filter((statement) => [statement.Action].flat().includes('sqs:SendMessage'));
    expect(sends.flatMap((statement) => [statement.Resource].flat())).toEqual([{ 'Fn::GetAtt': [webhooksQueueId(), 'Arn'] }]);
    expect(statements.some((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))).toBe(true);
    expect(environmentOf(defaultTemplate, functionId)[environmentNames.webhooksQueueUrl]).toEqual({ Ref: webhooksQueueId() });
  });

  it('runs the webhook outbox sweeper every minute, on a rule of its own, and lets it send only to the webhooks and drain queues', () => {
    // The canary has a rule of its own, every five minutes.
    const [, rule] = onlyResource(defaultTemplate, 'AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    const target = (rule.Properties.Targets as Array<{ Arn: { 'Fn::GetAtt': [string, string] } }>)[0];
    const functionId = target?.Arn['Fn::GetAtt'][0] ?? '';
    expect(functionProperties(defaultTemplate, functionId).Timeout).toBe(scheduledJobs[0]?.timeoutSeconds);
    const sends = permissionsOf(defaultTemplate, functionId).statements.filter((statement) =>
      [statement.Action].flat().includes('sqs:SendMessage'),
    );
    // The drain queue to put back a committed batch whose message was lost.
    expect(sends.flatMap((statement) => [statement.Resource].flat())).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [webhooksQueueId(), 'Arn'] }, { 'Fn::GetAtt': [drainQueueId(), 'Arn'] }]),
    );
    expect(sends.flatMap((statement) => [statement.Resource].flat())).toHaveLength(2);
  });

  it('the drain worker alone may run PartiQL updates, on the table only', () => {
    const statementsAllowing = (functionId: string) =>
      permissionsOf(defaultTemplate, functionId).statements.filter((statement) =>
        [statement.Action].flat().includes('dynamodb:PartiQLUpdate'),
      );
    const [grant, ...others] = statementsAllowing(functionIdOfWorker(defaultTemplate));
    expect(others).toHaveLength(0);
    expect([grant?.Resource].flat()).toEqual([{ 'Fn::GetAtt': [tableId(), 'Arn'] }]);
    for (const route of routes) expect(statementsAllowing(functionBehindRoute(defaultTemplate, routeKey(route))), route.id).toHaveLength(0);
  });
});

describe('queues', () => {
  it('the drain queue hides a message for at least six times the drain consumer timeout', () => {
    expect(VISIBILITY_TO_TIMEOUT_RATIO).toBeGreaterThanOrEqual(6);
    const queue = resourcesOf(defaultTemplate)[drainQueueId()];
    expect(queue?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * queues.drain.consumerTimeoutSeconds);
  });

  it('a message moves to the dead-letter queue after five receives, which keeps it for its retention', () => {
    const queue = resourcesOf(defaultTemplate)[drainQueueId()];
    expect(queue?.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [drainDeadLetterQueueId(), 'Arn'] },
      maxReceiveCount: 5,
    });
    const deadLetters = resourcesOf(defaultTemplate)[drainDeadLetterQueueId()];
    expect(deadLetters?.Properties.MessageRetentionPeriod).toBe(queues.drain.deadLetterRetentionDays * 24 * 60 * 60);
  });

  it('every queue is encrypted at rest by SQS and refuses requests without TLS', () => {
    const queueIds = Object.keys(defaultTemplate.findResources('AWS::SQS::Queue'));
    expect(queueIds).toHaveLength(Object.keys(queues).length * 2);
    for (const queueId of queueIds) {
      expect(resourcesOf(defaultTemplate)[queueId]?.Properties.SqsManagedSseEnabled).toBe(true);
      defaultTemplate.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });
});

describe('table', () => {
  it('the table is keyed by string PK and SK, billed on demand, with point-in-time recovery and TTL on', () => {
    defaultTemplate.resourceCountIs('AWS::DynamoDB::Table', 1);
    defaultTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: tableDefinition.partitionKey, AttributeType: 'S' },
        { AttributeName: tableDefinition.sortKey, AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    });
  });

  it('every index of the table definition exists with its keys and projection', () => {
    defaultTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: index.projection },
      })),
    });
  });

  it('by default the table is deletion-protected and retained, and so are the logs', () => {
    defaultTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    for (const logGroup of Object.values(defaultTemplate.findResources('AWS::Logs::LogGroup'))) {
      expect(logGroup.DeletionPolicy).toBe('Retain');
    }
  });

  it('stage dev lifts deletion protection and lets the table and the logs be destroyed', () => {
    const { template } = synthesize({ stage: 'dev' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
    for (const logGroup of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
      expect(logGroup.DeletionPolicy).toBe('Delete');
    }
  });

  it('names the stack after its stage, so that stages can share an account', () => {
    expect(stackNameFor(undefined)).toBe('PricingService');
    expect(stackNameFor('')).toBe('PricingService');
    expect(stackNameFor('dev')).toBe('PricingService-dev');
    expect(stackNameFor('staging')).toBe('PricingService-staging');
  });

  it('any stage other than dev keeps the production protections', () => {
    const { template } = synthesize({ stage: 'prod' });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
  });
});

describe('least privilege', () => {
  const dynamoOrSqs = (action: string) => action.startsWith('dynamodb:') || action.startsWith('sqs:');

  it("the fallback function's role has no DynamoDB or SQS permission", () => {
    const { actions } = permissionsOf(defaultTemplate, functionBehindRoute(defaultTemplate, '$default'));
    expect(actions.filter(dynamoOrSqs)).toEqual([]);
  });

  it('a route open to every caller may touch no table and no queue, and learns neither name', () => {
    const open = routes.filter((route) => route.auth === 'none');
    expect(open.length).toBeGreaterThan(0);
    for (const route of open) {
      const functionId = functionBehindRoute(defaultTemplate, routeKey(route));
      expect(permissionsOf(defaultTemplate, functionId).actions.filter(dynamoOrSqs), route.id).toEqual([]);
      const environment = environmentOf(defaultTemplate, functionId);
      const serviceNames: readonly string[] = Object.values(environmentNames);
      expect(
        Object.keys(environment).filter((name) => serviceNames.includes(name)),
        route.id,
      ).toEqual([]);
    }
  });

  it('the console’s routes get their own functions: the stylesheet’s touches nothing, the pages’ the table and the webhooks queue, and the data key only the settings posts that seal or open a signing secret', () => {
    for (const route of consoleRoutes) {
      const functionId = functionBehindRoute(defaultTemplate, routeKey(route));
      expect(functionProperties(defaultTemplate, functionId)).toMatchObject({ MemorySize: route.memoryMb, Timeout: route.timeoutSeconds });
      const { actions } = permissionsOf(defaultTemplate, functionId);
      const access: HttpRoute['access'] = route.access;
      expect(
        actions.some((action) => action.startsWith('dynamodb:')),
        route.id,
      ).toBe(access.table !== undefined);
      expect(actions.includes('sqs:SendMessage'), route.id).toBe((access.sendTo ?? []).length > 0);
      expect(actions.includes('secretsmanager:GetSecretValue'), route.id).toBe(access.webhookSecrets === true);
    }
    expect(consoleRoutes.filter((route) => (route.access as HttpRoute['access']).webhookSecrets === true).map((route) => route.id)).toEqual(
      ['consoleSettingsAction'],
    );
    const asset = consoleRoutes.find((route) => route.id === 'consoleAsset');
    expect(
      asset && permissionsOf(defaultTemplate, functionBehindRoute(defaultTemplate, routeKey(asset))).actions.filter(dynamoOrSqs),
    ).toEqual([]);
  });

  it('a route’s table statements name the table, and its indexes for Query alone', () => {
    for (const route of routes.filter((candidate) => candidate.access.table === 'readWrite')) {
      const { statements } = permissionsOf(defaultTemplate, functionBehindRoute(defaultTemplate, routeKey(route)));
      const onTable = statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('dynamodb:')));
      for (const statement of onTable) {
        const resource = JSON.stringify(statement.Resource);
        if (resource.includes('/index/*')) expect([statement.Action].flat(), route.id).toEqual(['dynamodb:Query']);
        else expect(statement.Resource, route.id).toEqual({ 'Fn::GetAtt': [tableId(), 'Arn'] });
      }
    }
  });

  it('a route added to the table may make the calls of its patterns, and may send only to the queues it names', () => {
    const { actions, statements } = permissionsOf(extendedTemplate, functionBehindRoute(extendedTemplate, routeKey(fakeReadRoute)));
    const expected = tableAccessOf(fakeReadRoute, [...routes, fakeReadRoute], [...accessPatterns, ...fakePatterns]);
    expect(expected.indexActions).toEqual(['dynamodb:Query']);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'sqs:SendMessage']));
    for (const write of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Scan']) {
      expect(actions).not.toContain(write);
    }
    const sends = statements.filter((statement) => [statement.Action].flat().includes('sqs:SendMessage'));
    expect(sends.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': [drainQueueId(), 'Arn'] }]);
  });

  it('a route without sendTo may not send to any queue', () => {
    for (const route of routes) {
      const access: HttpRoute['access'] = route.access;
      if (access.sendTo?.length) continue;
      const { actions } = permissionsOf(defaultTemplate, functionBehindRoute(defaultTemplate, routeKey(route)));
      expect(actions.filter((action) => action.startsWith('sqs:'))).toEqual([]);
    }
  });

  it('no role has a managed policy, and each may write only to the function log group', () => {
    for (const functionId of Object.keys(extendedTemplate.findResources('AWS::Lambda::Function'))) {
      const { statements, managedPolicies } = permissionsOf(extendedTemplate, functionId);
      expect(managedPolicies).toBeUndefined();
      const logs = statements.filter((statement) => [statement.Action].flat().some((a) => a.startsWith('logs:')));
      const logGroup = (functionProperties(extendedTemplate, functionId).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(logs.map((statement) => statement.Resource)).toEqual([{ 'Fn::GetAtt': [logGroup, 'Arn'] }]);
    }
  });

  it('only the functions whose access names webhookSecrets may read the webhook data key, and learn where it is', () => {
    // The other secret is the canary's key, read by the canary alone (price-canary.test.ts).
    const [secretId, secret] = onlyResource(defaultTemplate, 'AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
    expect(secret.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    const readers = routes.filter((route) => (route.access as HttpRoute['access']).webhookSecrets);
    expect(readers.map((route) => route.id).sort()).toEqual(['createWebhookEndpoint', 'rotateWebhookSecret']);
    for (const route of routes) {
      const functionId = functionBehindRoute(defaultTemplate, routeKey(route));
      const { statements } = permissionsOf(defaultTemplate, functionId);
      const reads = statements.filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'));
      const environment = environmentOf(defaultTemplate, functionId);
      if (readers.includes(route)) {
        expect(
          reads.map((statement) => statement.Resource),
          route.id,
        ).toEqual([{ Ref: secretId }]);
        expect(environment[dataKeySecretIdEnvironmentName], route.id).toEqual({ Ref: secretId });
      } else {
        expect(reads, route.id).toEqual([]);
        expect(environment[dataKeySecretIdEnvironmentName], route.id).toBeUndefined();
      }
    }
  });

  it('no policy allows a wildcard action', () => {
    for (const functionId of Object.keys(extendedTemplate.findResources('AWS::Lambda::Function'))) {
      expect(permissionsOf(extendedTemplate, functionId).actions.filter((action) => action.includes('*'))).toEqual([]);
    }
  });
});

describe('logs', () => {
  it('every function logs to the functions’ log group, which has a set retention', () => {
    const logGroups = resourcesOf(extendedTemplate);
    const functions = Object.values(extendedTemplate.findResources('AWS::Lambda::Function'));
    const logGroupIds = new Set(functions.map((fn) => fn.Properties.LoggingConfig.LogGroup.Ref as string));
    expect(logGroupIds.size).toBe(1);
    for (const logGroupId of logGroupIds) {
      expect(logGroups[logGroupId]?.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroups[logGroupId]?.Properties.RetentionInDays).toBe(logRetention);
    }
  });

  it('the API stage writes access logs to a log group with a set retention', () => {
    const [, stage] = onlyResource(defaultTemplate, 'AWS::ApiGatewayV2::Stage', { StageName: '$default' });
    const destination = (stage.Properties.AccessLogSettings as { DestinationArn: { 'Fn::GetAtt': [string, string] } }).DestinationArn[
      'Fn::GetAtt'
    ][0];
    expect(resourcesOf(defaultTemplate)[destination]?.Properties.RetentionInDays).toBe(logRetention);
    expect(stage.Properties).toMatchObject({ AutoDeploy: true });
  });
});

describe('outputs', () => {
  it('the stack outputs the API URL, the table name and the drain queue URL', () => {
    defaultTemplate.hasOutput('ApiUrl', {
      Value: { 'Fn::Join': ['', Match.arrayWith(['https://', Match.objectLike({ Ref: Match.anyValue() })])] },
    });
    defaultTemplate.hasOutput('TableName', { Value: { Ref: tableId() } });
    defaultTemplate.hasOutput('DrainQueueUrl', { Value: { Ref: drainQueueId() } });
  });
});
