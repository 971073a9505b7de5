// The CDK app: one environment-agnostic pricing service stack, held to the cdk-nag AwsSolutions rules at every synth.
import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { PricingServiceStack, stageContextKey } from '../lib/pricing-service-stack.ts';

const app = new App();

// Each stage is a stack of its own, so that a dev stack and a production stack can share an account and region.
const stage: unknown = app.node.tryGetContext(stageContextKey);
const stackName = typeof stage === 'string' && stage !== '' ? `PricingService-${stage}` : 'PricingService';

// No env: the stack must synthesize without an account or credentials, so it uses no lookups.
new PricingServiceStack(app, stackName, {
  description: 'Pricing service: HTTP API, queue workers and the service table',
});

// A finding that is neither fixed nor acknowledged on its resource fails the synth rather than reaching a deploy.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app));
