// Template tests of the cut-over to a restored table: `-c table=<name>` points the whole stack at an existing table.
import { App, type CfnElement } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import cdkNag from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { existingTableContextKey, PricingServiceStack, type PricingServiceStackProps } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { environmentNames } from '#platform/config.ts';
import { fakePatterns, fakeReadRoute, fakeWorker } from './fixtures.ts';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { routes } from '#edge/routes.ts';

const restored = 'PricingService-DataTable-restored-20261127';

type Resource = { Type: string; Properties?: Record<string, unknown> };

function synthesize(context: Record<string, unknown> = {}, props: PricingServiceStackProps = {}) {
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new PricingServiceStack(app, 'PricingService', props);
  const template = Template.fromStack(stack);
  return { stack, template, resources: template.toJSON().Resources as Record<string, Resource> };
}

const ofType = (resources: Record<string, Resource>, type: string) => Object.values(resources).filter((r) => r.Type === type);

/** The ARN of the named table as the template spells it, with `<AWS::Region>` for `{ Ref: 'AWS::Region' }`. */
function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  const node = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string };
  if (node['Fn::Join']) return node['Fn::Join'][1].map(flat).join(node['Fn::Join'][0]);
  if (node.Ref) return `<${node.Ref}>`;
  return JSON.stringify(value);
}

const tableArnText = `arn:<AWS::Partition>:dynamodb:<AWS::Region>:<AWS::AccountId>:table/${restored}`;

const own = synthesize();
const pointed = synthesize({ [existingTableContextKey]: restored });

describe('the stack pointed at a restored table', () => {
  it('creates no table of its own', () => {
    expect(ofType(pointed.resources, 'AWS::DynamoDB::Table')).toEqual([]);
    expect(ofType(own.resources, 'AWS::DynamoDB::Table')).toHaveLength(1);
  });

  it('gives every function that uses the table the restored table’s name, and the TableName output says it', () => {
    const functions = ofType(pointed.resources, 'AWS::Lambda::Function');
    const names = functions.flatMap((fn) => {
      const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      return environmentNames.tableName in variables ? [variables[environmentNames.tableName]] : [];
    });
    expect(names.length).toBeGreaterThan(0);
    // Every function of the own-table stack that has the variable has it here too.
    const ownNames = ofType(own.resources, 'AWS::Lambda::Function').filter((fn) =>
      JSON.stringify(fn.Properties?.Environment).includes(`"${environmentNames.tableName}"`),
    );
    expect(names).toHaveLength(ownNames.length);
    for (const name of names) expect(name).toBe(restored);
    const outputs = pointed.template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.TableName?.Value).toBe(restored);
  });

  it('grants table calls on the restored table’s ARN and index queries on its indexes, and on nothing else', () => {
    const resourcesGranted = ofType(pointed.resources, 'AWS::IAM::Policy').flatMap((policy) =>
      (policy.Properties?.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement.filter(
        (statement) => [statement.Action].flat().some((action) => action.startsWith('dynamodb:')),
      ).flatMap((statement) => [statement.Resource].flat().map(flat)),
    );
    expect(resourcesGranted.length).toBeGreaterThan(0);
    expect(new Set(resourcesGranted)).toEqual(new Set([tableArnText, `${tableArnText}/index/*`]));
    // Nothing refers to the stack's own table: its logical id appears nowhere.
    const ownTableId = own.stack.getLogicalId(own.stack.table.node.defaultChild as CfnElement);
    expect(JSON.stringify(own.resources)).toContain(`"${ownTableId}"`);
    expect(JSON.stringify(pointed.template.toJSON())).not.toContain(ownTableId);
  });

  it('watches the restored table in the throttle and system-error alarms, and on the dashboard', () => {
    const alarms = ofType(pointed.resources, 'AWS::CloudWatch::Alarm');
    const throttles = alarms.filter((alarm) => JSON.stringify(alarm.Properties).includes('ReadThrottleEvents'));
    const systemErrors = alarms.filter((alarm) => JSON.stringify(alarm.Properties).includes('SystemErrors'));
    // The table's throttles with its indexes' are watched by alarms of at most 10 metrics each: two of them.
    expect(throttles).toHaveLength(2);
    expect(systemErrors).toHaveLength(1);
    for (const alarm of [...throttles, ...systemErrors]) {
      const dimensions = JSON.stringify(alarm.Properties?.Metrics).match(/"TableName","Value":"[^"]*"/g) ?? [];
      expect(dimensions.length).toBeGreaterThan(0);
      for (const dimension of dimensions) expect(dimension).toBe(`"TableName","Value":"${restored}"`);
    }
    const dashboard = flat(ofType(pointed.resources, 'AWS::CloudWatch::Dashboard')[0]?.Properties?.DashboardBody);
    expect(dashboard).toContain(`"TableName","${restored}"`);
  });

  it('changes nothing else: the same resources but the table, and the stack without the option is as it was', () => {
    const types = (resources: Record<string, Resource>) => Object.values(resources).map((r) => r.Type);
    const withoutTable = types(own.resources).filter((type) => type !== 'AWS::DynamoDB::Table');
    expect(types(pointed.resources).sort()).toEqual(withoutTable.sort());
    expect(Object.keys(pointed.resources)).toHaveLength(Object.keys(own.resources).length - 1);
    // An empty value is no value: the stack keeps its own table.
    expect(synthesize({ [existingTableContextKey]: '' }).template.toJSON()).toEqual(own.template.toJSON());
  });

  it('takes the name from the existingTableName prop as from the context', () => {
    const byProp = synthesize({}, { existingTableName: restored });
    expect(byProp.template.toJSON()).toEqual(pointed.template.toJSON());
  });

  it('finds no unacknowledged cdk-nag error, with the customer-managed key or without', () => {
    for (const kmsKey of [undefined, 'new']) {
      const app = new App({
        context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], [existingTableContextKey]: restored, ...(kmsKey ? { kmsKey } : {}) },
      });
      const stack = new PricingServiceStack(app, 'PricingService', {
        routes: [...routes, fakeReadRoute],
        workers: [fakeWorker],
        accessPatterns: [...accessPatterns, ...fakePatterns],
      });
      const errors = new cdkNag.AwsSolutionsChecks()
        .validateScope(stack)
        .violations.filter((violation) => violation.severity === 'error')
        .map((violation) => violation.ruleName);
      expect(errors).toEqual([]);
    }
  });

  it.each([
    { why: 'too short', name: 'ab' },
    { why: 'too long', name: 'x'.repeat(256) },
    { why: 'with a space', name: 'my table' },
    { why: 'with a slash', name: 'table/../other' },
    { why: 'with a letter outside ASCII', name: 'tåble' },
  ])('refuses a name $why at synth, with an error that names it', ({ name }) => {
    expect(() => synthesize({ [existingTableContextKey]: name })).toThrow(`"${name}" is not a DynamoDB table name (3 to 255 characters`);
  });

  it('takes a name of exactly 3 and of exactly 255 characters', () => {
    for (const name of ['abc', 'x'.repeat(255)]) {
      expect(ofType(synthesize({ [existingTableContextKey]: name }).resources, 'AWS::DynamoDB::Table')).toEqual([]);
    }
  });

  it('refuses a context value that is not a name', () => {
    expect(() => synthesize({ [existingTableContextKey]: true })).toThrow(/takes a table name/);
  });
});

describe('a cut-over no context file records', () => {
  const warningsOf = (stack: PricingServiceStack) =>
    Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('no context file of this checkout records'));

  it('warns at synth, with the fix: the table name to add to cdk.json', () => {
    const [warning, ...others] = warningsOf(pointed.stack);
    expect(others).toEqual([]);
    expect(JSON.stringify(warning?.entry.data)).toContain(`add \\"table\\": \\"${restored}\\" to the \\"context\\" of cdk.json`);
  });

  it('says nothing once the name is recorded, nor for a stack on its own table', () => {
    expect(warningsOf(synthesize({ [existingTableContextKey]: restored }, { recordedTableNames: [restored] }).stack)).toEqual([]);
    expect(warningsOf(own.stack)).toEqual([]);
  });
});
