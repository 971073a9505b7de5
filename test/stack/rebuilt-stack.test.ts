// Template tests of a stack rebuilt around a kept table: `-c webhookDataKey=<ARN>` takes the earlier stack's data key secret, so that its sealed webhook secrets still open.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { webhookDataKeyContextKey } from '#lib/stack/constructs/webhook-data-key.ts';
import { canaryContextKeys } from '#lib/stack/constructs/price-canary.ts';
import { PricingServiceStack } from '#lib/stack/pricing-service-stack.ts';
import { cdkJsonContext } from '#lib/stack/project.ts';
import { dataKeySecretIdEnvironmentName, deriveDataKey, openSecret, sealSecret } from '#shared/webhooks/secrets.ts';

const kept = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:WebhookDataKeyA1B2C3D4-x1Y2z3';

function synthesize(context: Record<string, unknown> = {}) {
  // Without the canary, whose key has a secret of its own (price-canary.test.ts).
  const app = new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], [canaryContextKeys.canary]: 'off', ...context } });
  const stack = new PricingServiceStack(app, 'PricingService');
  return Template.fromStack(stack);
}

type Resource = { Type: string; Properties?: Record<string, unknown> };
const resourcesOf = (template: Template) => Object.values(template.toJSON().Resources as Record<string, Resource>);

describe('a stack rebuilt with the earlier stack’s webhook data key', () => {
  const template = synthesize({ [webhookDataKeyContextKey]: kept });

  it('makes no secret of its own, and outputs the kept one', () => {
    expect(resourcesOf(template).filter((resource) => resource.Type === 'AWS::SecretsManager::Secret')).toEqual([]);
    expect(resourcesOf(synthesize()).filter((resource) => resource.Type === 'AWS::SecretsManager::Secret')).toHaveLength(1);
    template.hasOutput('WebhookDataKeySecretArn', { Value: kept });
  });

  it('points every function that seals or opens signing secrets at the kept secret, and lets only them read it', () => {
    const functions = resourcesOf(template).filter((resource) => resource.Type === 'AWS::Lambda::Function');
    const pointed = functions.filter((fn) => {
      const variables = (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      return dataKeySecretIdEnvironmentName in variables;
    });
    expect(pointed.length).toBeGreaterThan(0);
    for (const fn of pointed) {
      expect((fn.Properties?.Environment as { Variables: Record<string, unknown> }).Variables[dataKeySecretIdEnvironmentName]).toBe(kept);
    }
    const readers = resourcesOf(template).filter(
      (resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties).includes('secretsmanager:GetSecretValue'),
    );
    expect(readers.length).toBeGreaterThan(0);
    for (const policy of readers) expect(JSON.stringify(policy.Properties)).toContain(kept);
  });

  it('refuses anything but a complete secret ARN, which is what IAM grants on', () => {
    expect(() => synthesize({ [webhookDataKeyContextKey]: 'WebhookDataKeyA1B2C3D4' })).toThrow(/complete ARN/);
    expect(() => synthesize({ [webhookDataKeyContextKey]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:WebhookDataKey' })).toThrow(
      /complete ARN/,
    );
  });

  it('opens, with the key read again from the same secret, what the earlier stack sealed', () => {
    const material = 'k'.repeat(20) + 'material-the-earlier-stack-generated';
    const owner = { workspaceId: 'ws_1', endpointId: 'we_1' };
    const sealed = sealSecret(deriveDataKey(material), 'whsec_signing', owner);
    // A new stack's functions derive the key afresh, on a cold start of their own.
    expect(openSecret(deriveDataKey(material), sealed, owner)).toBe('whsec_signing');
    expect(() => openSecret(deriveDataKey(`${material}-a new stack's own`), sealed, owner)).toThrow();
  });
});
