// One Lambda function of the service: its esbuild bundling, runtime settings and the log group it writes to, run under its access profile's role.
import { posix } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type ILogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { metricsNamespace, serviceName } from '#platform/config.ts';
import { projectRoot } from '#lib/stack/project.ts';
import { powertoolsLayer } from './powertools-layer.ts';

/**
 * How every handler is bundled. ESM because the handlers are ESM; the AWS SDK is bundled rather than taken from the
 * runtime so the version deployed is the version tested. Some dependencies still call `require`, which does not exist
 * in an ES module, hence the banner; the alias keeps it from clashing with a `createRequire` the bundle imports itself.
 */
export const functionBundling: BundlingOptions = {
  format: OutputFormat.ESM,
  target: 'node24',
  minify: true,
  sourceMap: false,
  bundleAwsSDK: true,
  mainFields: ['module', 'main'],
  banner: "import { createRequire as __bannerCreateRequire } from 'node:module'; const require = __bannerCreateRequire(import.meta.url);",
  // Lambda hands credentials over in environment variables; see shared/platform/lambda-credentials.ts for the 90 KB this saves.
  // No call the service makes streams events; see shared/platform/lambda-event-streams.ts for the 15 KB this saves.
  // Endpoint discovery stays off; see shared/platform/lambda-endpoint-discovery.ts for the 8 KB this saves.
  esbuildArgs: {
    '--alias:@aws-sdk/middleware-endpoint-discovery': `${projectRoot}shared/platform/lambda-endpoint-discovery.ts`,
    '--alias:@aws-sdk/credential-provider-node': `${projectRoot}shared/platform/lambda-credentials.ts`,
    '--alias:@smithy/core/event-streams': `${projectRoot}shared/platform/lambda-event-streams.ts`,
  },
};

/** Long enough to investigate an incident reported a few weeks late, short enough not to pay for stale logs. */
export const logRetention = RetentionDays.ONE_MONTH;

export interface ServiceFunctionProps {
  /** Handler module relative to the project root. */
  readonly entry: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  readonly environment: Readonly<Record<string, string>>;
  /**
   * The functions' one log group (the stack's): Lambda names each stream after its function, so a group of its own per
   * function would be a resource per route for nothing.
   */
  readonly logGroup: ILogGroup;
  /** Files the handler reads at run time: path in the package (beside index.mjs) → path in the project. */
  readonly files?: Readonly<Record<string, string>>;
  /** The role of the function's access profile (constructs/service-roles.ts), which other functions may share. */
  readonly role: Role;
}

/** A word for a POSIX shell, whatever it holds. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The bundling of a function that reads files at run time: the same esbuild bundle, and each file copied into the
 * package as it is. Copied rather than inlined, so that the bundle stays code and the handler reads the same bytes
 * locally (from the project) as deployed (from beside the bundle).
 */
export function bundlingWithFiles(files: Readonly<Record<string, string>>): BundlingOptions {
  return {
    ...functionBundling,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) =>
        Object.entries(files).map(([packagePath, projectPath]) => {
          const target = `${outputDir}/${packagePath}`;
          return `mkdir -p ${shellWord(posix.dirname(target))} && cp ${shellWord(`${inputDir}/${projectPath}`)} ${shellWord(target)}`;
        }),
    },
  };
}

export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: ILogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = props.logGroup;

    // Instead of the AWSLambdaBasicExecutionRole managed policy, which may create and write any log group in the
    // account, the role may write to the functions' log group only.
    this.role = props.role;
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: `${projectRoot}${props.entry}`,
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      bundling: props.files && Object.keys(props.files).length > 0 ? bundlingWithFiles(props.files) : functionBundling,
      // X-Ray active tracing; the Powertools tracer that writes the handler's segments comes from the layer (shared/tracing.ts).
      tracing: Tracing.ACTIVE,
      layers: [powertoolsLayer(this)],
      environment: {
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
    });
  }
}
