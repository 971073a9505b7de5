// `npm start`: runs the whole service locally in the foreground until SIGINT or SIGTERM.

import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startLocalStack } from '../lib/local/stack.ts';
import { projectRoot } from '../lib/project.ts';

const { values } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    'no-seed': { type: 'boolean', default: false },
  },
});

function portFrom(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number, not "${value}"`);
  return port;
}

// PRICING_LOCAL_DIR lets a second copy (or a test) keep its data and stack.json apart from the usual .local/.
const stateDir = process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local');
const host = process.env.HOST || '127.0.0.1';

const stack = await startLocalStack({
  host,
  port: portFrom('PORT') ?? 3000,
  dynamoDbPort: portFrom('DYNAMODB_PORT'),
  sqsPort: portFrom('SQS_PORT'),
  dataDir: values.fresh ? undefined : stateDir,
  stateDir,
  onWorkerError: (worker, error) => console.error(`[${worker}] invocation failed:`, error),
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the local stack…`);
  await stack.stop();
  process.exit(0);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));

if (!values['no-seed']) {
  // Loaded only now: repository modules read the environment the stack has just set.
  const { seedDemo } = await import('../lib/local/seed.ts');
  const { demo, created } = await seedDemo(values.fresh ? undefined : join(stateDir, 'demo.json'));
  console.log(created ? 'Created the demo workspace:' : 'Demo workspace (from an earlier start):');
  console.log(`  workspace id  ${demo.workspaceId}`);
  console.log(`  connector id  ${demo.connectorId}`);
  console.log('  keys:');
  console.log(`    erp         ${demo.keys.erp}`);
  console.log(`    storefront  ${demo.keys.storefront}`);
  console.log(`    connector   ${demo.keys.connector}`);
  console.log(`    pw_live     ${demo.keys.overviewLive}`);
  console.log(`    pw_test     ${demo.keys.overviewTest}`);
}

console.log(`DynamoDB Local at ${stack.dynamoDbEndpoint}, SQS at ${stack.sqsEndpoint}, table ${stack.tableName}`);
console.log(`Pricing service ready at ${stack.gatewayUrl}`);
