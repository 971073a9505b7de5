// Template tests of what each function may do: table actions from the access-pattern catalogue, one role per access profile, cost tags and the KMS option.
import type { Stack } from 'aws-cdk-lib';
import { App, CfnResource, TagManager } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { consoleRoutes, fallbackRoute, type HttpRoute, type RouteAccess, routes, scheduledJobs, workers } from '#edge/routes.ts';
import {
  costTags,
  defaultStage,
  untaggedResourceTypes,
  PricingServiceStack,
  type PricingServiceStackProps,
} from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { entryNames, patternsOf, tableAccessOf, type TableCaller } from '#lib/stack/table-access.ts';
import { serviceName } from '#platform/config.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';

function synthesize(props: PricingServiceStackProps = {}, context: Record<string, unknown> = {}) {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new PricingServiceStack(app, 'PricingService', props);
  return { stack, template: Template.fromStack(stack) };
}

type Resource = { Type: string; Properties: Record<string, unknown> };
interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const { stack, template } = synthesize();
const resources = template.toJSON().Resources as Record<string, Resource>;
const rows: ReadonlyArray<TableCaller & { readonly access: RouteAccess }> = [
  fallbackRoute,
  ...routes,
  ...consoleRoutes,
  ...workers,
  ...scheduledJobs,
];
const callers: readonly TableCaller[] = rows;
const ids = new Set(rows.map((row) => row.id));
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnResource);
const tableArn = { 'Fn::GetAtt': [logicalId(stack.table), 'Arn'] };

/** The statements of the policies attached to a role. */
function statementsOf(of: Template, roleId: string): Statement[] {
  return Object.values(of.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

function roleOf(functionId: string): string {
  const fn = stack.functions.get(functionId);
  if (!fn) throw new Error(`no function ${functionId}`);
  return logicalId(fn.role);
}

/** A function's DynamoDB actions in the template, on the table and on its indexes. */
function grantedTableActions(functionId: string) {
  const statements = statementsOf(template, roleOf(functionId));
  const actionsOn = (resource: unknown) =>
    statements
      .filter((statement) => JSON.stringify([statement.Resource].flat()) === JSON.stringify([resource]))
      .flatMap((statement) => [statement.Action].flat())
      .filter((action) => action.startsWith('dynamodb:'))
      .sort();
  const all = statements.flatMap((statement) => [statement.Action].flat()).filter((action) => action.startsWith('dynamodb:'));
  return {
    tableActions: actionsOn(tableArn),
    indexActions: actionsOn({ 'Fn::Join': ['', [tableArn, '/index/*']] }),
    count: all.length,
  };
}

describe('the access-pattern catalogue, as the stack reads it', () => {
  it('every usedBy entry names a function of the stack, a collective of them, or an operator’s command', () => {
    const unknown = accessPatterns
      .flatMap((pattern) => pattern.usedBy)
      .filter((entry) => !entryNames(entry, rows[0] as TableCaller, ids).known);
    expect(unknown).toEqual([]);
  });

  it('every pattern names the calls it makes, but the one that says it makes none of its own', () => {
    const silent = accessPatterns.filter((pattern) => pattern.calls.length === 0).map((pattern) => pattern.call);
    expect(silent.every((call) => call.startsWith('No call of its own'))).toBe(true);
    expect(silent).toHaveLength(1);
  });

  it('every function that names the table in its row runs some pattern of the catalogue', () => {
    for (const row of rows.filter((candidate) => candidate.access.table)) {
      expect(tableAccessOf(row, callers).tableActions.length, row.id).toBeGreaterThan(0);
    }
  });
});

describe('least privilege from the catalogue', () => {
  it('every function may make exactly the table calls its access patterns need, on the table and, for Query, its indexes', () => {
    for (const row of rows) {
      const expected = row.access.table ? tableAccessOf(row, callers) : { tableActions: [], indexActions: [] };
      const granted = grantedTableActions(row.id);
      expect(granted.tableActions, row.id).toEqual(expected.tableActions);
      expect(granted.indexActions, row.id).toEqual(expected.indexActions);
      expect(granted.count, row.id).toBe(expected.tableActions.length + expected.indexActions.length);
    }
  });

  it('no function may Scan, and only those whose patterns delete may DeleteItem', () => {
    const deletes = (call: string) => call === 'DeleteItem' || call === 'TransactWriteItems Delete';
    for (const row of rows) {
      const { tableActions } = grantedTableActions(row.id);
      expect(tableActions, row.id).not.toContain('dynamodb:Scan');
      const deleting = row.access.table ? patternsOf(row, callers).some((pattern) => pattern.calls.some(deletes)) : false;
      expect(tableActions.includes('dynamodb:DeleteItem'), row.id).toBe(deleting);
    }
    // The read-only routes the operations review named may delete nothing.
    for (const id of ['getPrice', 'getUsage', 'consoleSignIn', 'listBatches']) {
      expect(grantedTableActions(id).tableActions, id).not.toContain('dynamodb:DeleteItem');
    }
  });

  it('a transaction is granted as the item calls of its entries, a condition check as ConditionCheckItem', () => {
    // Registering an endpoint checks the workspace, counts the endpoint and puts it, in one transaction.
    expect(grantedTableActions('createWebhookEndpoint').tableActions).toEqual(
      expect.arrayContaining(['dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem']),
    );
    expect(grantedTableActions('deleteWebhookEndpoint').tableActions).toContain('dynamodb:DeleteItem');
  });

  it('only functions whose patterns query an index may read the indexes', () => {
    expect(grantedTableActions('priceLines').indexActions).toEqual(['dynamodb:Query']);
    expect(grantedTableActions('getUsage').indexActions).toEqual([]);
    expect(grantedTableActions('consoleSignIn').indexActions).toEqual([]);
  });
});

describe('one role per access profile', () => {
  it('functions with the same access share one role, and functions with different access never do', () => {
    const profileOf = (row: (typeof rows)[number]) =>
      JSON.stringify({
        table: row.access.table ? tableAccessOf(row, callers) : null,
        sendTo: [...(row.access.sendTo ?? [])].sort(),
        deadLetter: row.access.sendToDeadLetter ?? [],
        secrets: row.access.webhookSecrets ?? false,
        consumes: workers.find((worker) => worker.id === row.id)?.queue ?? null,
      });
    const roles = new Map<string, string>();
    for (const row of rows) {
      const role = roleOf(row.id);
      const profile = profileOf(row);
      expect(roles.get(role) ?? profile, row.id).toBe(profile);
      roles.set(role, profile);
    }
    expect(new Set(roles.values()).size).toBe(roles.size);
    // Besides the profiles' roles, the production stack's canary has one of its own, which reads its key's secret only.
    expect(stack.canary).toBeDefined();
    expect(Object.keys(template.findResources('AWS::IAM::Role'))).toHaveLength(roles.size + 1);
    expect(Object.keys(template.findResources('AWS::IAM::Policy'))).toHaveLength(roles.size + 1);
    expect(stack.roles.size).toBe(roles.size);
    expect(roles.size).toBeLessThan(rows.length);
  });

  it('a route added with the access of an existing profile adds no role and no policy', () => {
    const existing = routes.find((route) => route.id === 'getWebhookEndpoint') as HttpRoute;
    const added: HttpRoute = { ...existing, id: 'getThing', path: '/v1/things/{thingId}', entry: existing.entry };
    const extended = synthesize({ routes: [...routes, added] });
    expect(extended.stack.roles.size).toBe(stack.roles.size);
    expect(Object.keys(extended.template.findResources('AWS::IAM::Role'))).toHaveLength(stack.roles.size + 1);
    expect(Object.keys(extended.template.findResources('AWS::IAM::Policy'))).toHaveLength(stack.roles.size + 1);
    expect(extended.stack.functions.get('getThing')?.role).toBe(extended.stack.functions.get('getWebhookEndpoint')?.role);
  });
});

describe('cost-allocation tags', () => {
  /** Every resource CloudFormation can tag, with its tags once the stack has synthesized. */
  const taggable = (of: Stack) =>
    of.node
      .findAll()
      .filter((construct): construct is CfnResource => CfnResource.isCfnResource(construct) && TagManager.isTaggable(construct))
      .filter((resource) => !untaggedResourceTypes.includes(resource.cfnResourceType))
      .map((resource) => ({ path: resource.node.path, tags: (resource as unknown as { tags: TagManager }).tags.tagValues() }));

  it('every resource that takes tags carries the service and the stage, production by default', () => {
    const tagged = taggable(stack);
    expect(tagged.length).toBeGreaterThan(rows.length);
    for (const { path, tags } of tagged) {
      expect(tags[costTags.service], path).toBe(serviceName);
      expect(tags[costTags.stage], path).toBe(defaultStage);
    }
  });

  it('the dashboard, which CloudFormation takes no tags on, carries none', () => {
    for (const dashboard of Object.values(template.findResources('AWS::CloudWatch::Dashboard')))
      expect(dashboard.Properties.Tags).toBeUndefined();
  });

  it('the stage tag is the stack’s stage, from its context', () => {
    const dev = synthesize({}, { stage: 'dev' });
    for (const { path, tags } of taggable(dev.stack)) expect(tags[costTags.stage], path).toBe('dev');
  });

  it('every function carries the route or the worker it serves', () => {
    const tagOf = (id: string) =>
      workers.some((w) => w.id === id) || scheduledJobs.some((j) => j.id === id) ? costTags.worker : costTags.route;
    for (const row of rows) {
      const fn = stack.functions.get(row.id);
      const cfn = fn?.function.node.defaultChild as CfnResource;
      expect((cfn as unknown as { tags: TagManager }).tags.tagValues()[tagOf(row.id)], row.id).toBe(row.id);
      const lambda = resources[logicalId((fn as NonNullable<typeof fn>).function)];
      expect(JSON.stringify(lambda?.Properties.Tags), row.id).toContain(`{"Key":"${tagOf(row.id)}","Value":"${row.id}"}`);
    }
  });
});

describe('encryption', () => {
  it('without a key option the data is encrypted by each service’s own key, and the stack makes no KMS key', () => {
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual([]);
    expect(stack.encryptionKey).toBeUndefined();
    for (const queue of Object.values(template.findResources('AWS::SQS::Queue'))) {
      expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    }
    for (const logGroup of Object.values(template.findResources('AWS::Logs::LogGroup')))
      expect(logGroup.Properties.KmsKeyId).toBeUndefined();
    const json = JSON.stringify(template.toJSON());
    expect(json).not.toContain('kms:');
  });

  it('kmsKey=new makes one rotating key and encrypts the table, the queues, the data key secret and every log group with it', () => {
    const { stack: keyed, template: keyedTemplate } = synthesize({}, { kmsKey: 'new' });
    const keys = Object.entries(keyedTemplate.findResources('AWS::KMS::Key'));
    expect(keys).toHaveLength(1);
    const [keyId, key] = keys[0] as [string, Resource];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    keyedTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn },
    });
    for (const queue of Object.values(keyedTemplate.findResources('AWS::SQS::Queue'))) {
      expect(queue.Properties.KmsMasterKeyId).toEqual(keyArn);
    }
    for (const logGroup of Object.values(keyedTemplate.findResources('AWS::Logs::LogGroup')))
      expect(logGroup.Properties.KmsKeyId).toEqual(keyArn);
    keyedTemplate.hasResourceProperties('AWS::SecretsManager::Secret', { KmsKeyId: keyArn });
    // CloudWatch Logs may use the key for this account's log groups, and nothing else.
    expect(JSON.stringify(key.Properties.KeyPolicy)).toContain('kms:EncryptionContext:aws:logs:arn');
    // A reader of the table may decrypt with the key; a writer may encrypt too.
    const keyActions = (functionId: string) => {
      const fn = keyed.functions.get(functionId);
      const roleId = keyed.getLogicalId(fn?.role.node.defaultChild as CfnResource);
      return statementsOf(keyedTemplate, roleId)
        .filter((statement) => JSON.stringify(statement.Resource) === JSON.stringify(keyArn))
        .flatMap((statement) => [statement.Action].flat());
    };
    expect(keyActions('getPrice')).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:GenerateDataKey']));
    expect(keyActions('getPrice').filter((action) => action.includes('*'))).toEqual([]);
    expect(keyActions('openapiV1')).toEqual([]);
  });

  it('kmsKey=<an ARN> uses that key and makes none; anything else is refused', () => {
    const arn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const { template: imported } = synthesize({ kmsKey: arn });
    expect(Object.keys(imported.findResources('AWS::KMS::Key'))).toEqual([]);
    imported.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: true, KMSMasterKeyId: arn } });
    for (const queue of Object.values(imported.findResources('AWS::SQS::Queue'))) expect(queue.Properties.KmsMasterKeyId).toBe(arn);
    expect(() => synthesize({ kmsKey: 'yes' })).toThrow(/kmsKey must be 'new' or a KMS key ARN/);
  });
});
