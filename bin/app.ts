// The CDK app: one environment-agnostic pricing service stack, held to the cdk-nag AwsSolutions rules at every synth.
import { App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import { PricingServiceStack, stackNameFor, stageContextKey } from '#lib/stack/pricing-service-stack.ts';

const app = new App();

// No env: the stack must synthesize without an account or credentials, so it uses no lookups.
new PricingServiceStack(app, stackNameFor(app.node.tryGetContext(stageContextKey)), {
  description: 'Pricing service: HTTP API, queue workers and the service table',
});

// A finding that is neither fixed nor acknowledged on its resource fails the synth rather than reaching a deploy.
Validations.of(app).addPlugins(new cdkNag.AwsSolutionsChecks(app));
