// The function bundles as the stack deploys them: synthesizes the app with real esbuild bundling and finds each row's code.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { consoleRoutes, fallbackRoute, routes, scheduledJobs, workers } from '#edge/routes.ts';
import { PricingServiceStack } from './pricing-service-stack.ts';
import { cdkJsonContext } from './project.ts';

export interface FunctionBundle {
  /** The route-table id of the function. */
  readonly id: string;
  readonly entry: string;
  /** The bundled handler module, `index.mjs` in the cloud assembly. */
  readonly path: string;
  readonly bytes: number;
}

/** Synthesizes into `outdir` (the caller removes it) and returns every function's bundle. */
export function synthesizeBundles(outdir: string): FunctionBundle[] {
  const app = new App({ outdir, context: cdkJsonContext() });
  const stack = new PricingServiceStack(app, 'PricingService');
  app.synth();
  const entries = new Map([...routes, ...consoleRoutes, fallbackRoute, ...workers, ...scheduledJobs].map((row) => [row.id, row.entry]));
  return [...stack.functions].map(([id, fn]) => {
    const code = stack.resolve((fn.function.node.defaultChild as CfnFunction).code) as { s3Key: string };
    const path = join(outdir, `asset.${code.s3Key.replace(/\.zip$/, '')}`, 'index.mjs');
    return { id, entry: entries.get(id) ?? '', path, bytes: statSync(path).size };
  });
}
