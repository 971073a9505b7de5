// The Powertools layer every function loads the tracer from, pinned to the version the project installs and tests.
import { readFileSync } from 'node:fs';
import { Stack } from 'aws-cdk-lib';
import { type ILayerVersion, LayerVersion } from 'aws-cdk-lib/aws-lambda';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { projectRoot } from '#lib/stack/project.ts';

/** The installed `@aws-lambda-powertools/tracer`: the layer deployed is the release the tests ran against. */
export const powertoolsVersion: string = (
  JSON.parse(readFileSync(`${projectRoot}node_modules/@aws-lambda-powertools/tracer/package.json`, 'utf8')) as { version: string }
).version;

/** The public parameter Powertools publishes in every commercial region, holding the layer ARN of one release. */
export const powertoolsLayerParameter = `/aws/service/powertools/typescript/generic/all/${powertoolsVersion}`;

const layerId = 'PowertoolsLayer';

/** One reference per stack, resolved at deploy time from the region's parameter. */
export function powertoolsLayer(scope: Construct): ILayerVersion {
  const stack = Stack.of(scope);
  const existing = stack.node.tryFindChild(layerId) as ILayerVersion | undefined;
  return (
    existing ?? LayerVersion.fromLayerVersionArn(stack, layerId, StringParameter.valueForStringParameter(stack, powertoolsLayerParameter))
  );
}
