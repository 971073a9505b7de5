// Every `npx cdk` line the README and the operations guide show, synthesized as `cdk deploy` would with its context options, the values a reader fills in standing in: each makes a stack that passes its cdk-nag rules.
import { App } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { PricingServiceStack, stackNameFor, stageContextKey } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { codeLines } from '#test/support/documented-commands.ts';

/** What a reader writes in for the placeholders of the deploy lines. */
const filledIn: [RegExp, string][] = [
  [/^\$R$|^<name>$|^<TableName of the kept table>$/, 'pricing-restored'],
  [/^<ARN>$|^\$OLD_KEY$/, 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:WebhookDataKeyA1B2C3D4-x1Y2z3'],
  [/^arn:aws:kms:.*…$/, 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab'],
  [/^<name or ARN>$/, 'pricing/canary-key'],
  [/^<SKU>$/, 'CANARY'],
];

/** The context options of a deploy line, `-c key=value` each, a placeholder filled in. */
function contextOf(line: string): Record<string, string> {
  const command = line.replace(/\s#.*$/, '');
  const context: Record<string, string> = {};
  for (const match of command.matchAll(/-c\s+(\w+)=(<[^>]*>|\S+)/g)) {
    const [, key = '', raw = ''] = match;
    context[key] = filledIn.find(([pattern]) => pattern.test(raw))?.[1] ?? raw;
  }
  return context;
}

const deployLines = ['README.md', 'docs/operations.md'].flatMap((where) =>
  codeLines(where)
    .filter((line) => /^npx cdk (synth|deploy|diff)\b/.test(line))
    .map((line) => ({ where, line, context: contextOf(line) })),
);

describe('the deploy lines the docs show', () => {
  it('finds the README’s and the operations guide’s, the restored table and the canary’s options among them', () => {
    expect(deployLines.length).toBeGreaterThan(8);
    const keys = new Set(deployLines.flatMap(({ context }) => Object.keys(context)));
    for (const key of ['stage', 'table', 'webhookDataKey', 'canary', 'canarySecret', 'canarySku', 'kmsKey']) expect(keys).toContain(key);
  });

  it.each(deployLines.map((documented) => [`${documented.where}: ${documented.line}`, documented] as const))(
    'synthesizes %s, held to its cdk-nag rules',
    (_, { context }) => {
      for (const value of Object.values(context)) expect(value, 'every placeholder is filled in').not.toMatch(/[<>…$]/);
      const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context } });
      const stack = new PricingServiceStack(app, stackNameFor(app.node.tryGetContext(stageContextKey)));
      app.synth();
      const errors = new cdkNag.AwsSolutionsChecks()
        .validateScope(stack)
        .violations.filter((violation) => violation.severity === 'error')
        .map((violation) => violation.ruleName);
      expect(errors).toEqual([]);
    },
  );
});
