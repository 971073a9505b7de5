// The function bundles as the stack deploys them: synthesizes the app with real esbuild bundling and finds each row's code.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { fallbackRoute, routes, workers } from '../shared/routes.ts';
import { constructId } from './constructs/construct-id.ts';
import { ServiceFunction } from './constructs/service-function.ts';
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

export function synthesizeBundles(outdir = mkdtempSync(join(tmpdir(), 'pricing-bundles-'))): FunctionBundle[] {
  const app = new App({ outdir, context: cdkJsonContext() });
  const stack = new PricingServiceStack(app, 'PricingService');
  app.synth();
  const rows = [
    ...routes.map((row) => ({ ...row, constructId: `${constructId(row.id)}Function` })),
    { ...fallbackRoute, constructId: `${constructId(fallbackRoute.id)}Function` },
    ...workers.map((row) => ({ ...row, constructId: `${constructId(row.id)}Worker` })),
  ];
  return rows.map((row) => {
    const fn = stack.node.findChild(row.constructId);
    if (!(fn instanceof ServiceFunction)) throw new Error(`${row.constructId} is not a service function`);
    const code = stack.resolve((fn.function.node.defaultChild as CfnFunction).code) as { s3Key: string };
    const path = join(outdir, `asset.${code.s3Key.replace(/\.zip$/, '')}`, 'index.mjs');
    return { id: row.id, entry: row.entry, path, bytes: statSync(path).size };
  });
}
