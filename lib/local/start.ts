// `npm start`'s program: the whole service run locally in the foreground until SIGINT or SIGTERM, with the demo seeded.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LocalStack } from '#lib/local/stack.ts';
import { projectRoot } from '#lib/stack/project.ts';

/**
 * Starts the local stack (`args`: --fresh, --no-seed, --allow-loopback-webhooks) and seeds the demo workspace; a demo
 * kept from an earlier release is first brought up to date by `upgradeWorkspace`.
 */
export async function startLocal(args: string[], upgradeWorkspace: (workspaceId: string) => Promise<void>): Promise<void> {
  const { values } = startFlags(args);

  // PRICING_LOCAL_DIR lets a second copy (or a test) keep its data and stack.json apart from the usual .local/.
  const stateDir = process.env.PRICING_LOCAL_DIR || join(projectRoot, '.local');
  const host = process.env.HOST || '127.0.0.1';

  let stack: LocalStack | undefined;
  let stopping = false;
  /** A signal that came while the stack was starting: honoured as soon as it has started, so nothing is left behind. */
  let signalledDuringStartup: string | undefined;

  async function shutdown(reason: string, exitCode: number): Promise<void> {
    if (!stack) {
      if (exitCode !== 0) process.exit(exitCode);
      signalledDuringStartup ??= reason;
      return;
    }
    if (stopping) return;
    stopping = true;
    console.log(`\n${reason}: stopping the local stack…`);
    await stack.stop();
    process.exit(exitCode);
  }
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));
  process.on('uncaughtException', (error) => {
    console.error(error);
    void shutdown('unexpected error', 1);
  });

  const port = portFrom('PORT') ?? 3000;
  // Only now, with the signal handlers in place: loading every handler takes a while, and a signal that came during it
  // would otherwise end the process before it could stop what it had started.
  console.log('Starting DynamoDB Local, the SQS emulator and the gateway…');
  const { startLocalStack } = await import('#lib/local/stack.ts');
  try {
    stack = await startLocalStack({
      host,
      port,
      dynamoDbPort: portFrom('DYNAMODB_PORT'),
      sqsPort: portFrom('SQS_PORT'),
      dataDir: values.fresh ? undefined : stateDir,
      stateDir,
      onWorkerError: (worker, error) => console.error(`[${worker}] invocation failed:`, error),
      webhooks: { allowLoopbackHttp: values['allow-loopback-webhooks'] },
    });
  } catch (error) {
    const inUse = (error as { code?: string }).code === 'EADDRINUSE';
    console.error(inUse ? `Port ${port} on ${host} is in use: stop whatever holds it, or start with PORT=<another port>.` : error);
    process.exit(1);
  }
  if (signalledDuringStartup) await shutdown(signalledDuringStartup, 0);

  if (!values['no-seed']) await seedTheDemo(stack, values.fresh ? undefined : join(stateDir, 'demo.json'), upgradeWorkspace);

  console.log(`DynamoDB Local at ${stack.dynamoDbEndpoint}, SQS at ${stack.sqsEndpoint}, table ${stack.tableName}`);
  if (values['no-seed']) console.log(`Console at ${stack.gatewayUrl}/console (create a user: npm run admin -- user create)`);
  console.log(`Pricing service ready at ${stack.gatewayUrl}`);
}

/**
 * Seeds the demo workspace (kept in `demoFile` across starts, unless fresh) and prints its keys; a new one is given a
 * sample catalogue and, once that has drained, an adherence history in the background.
 */
async function seedTheDemo(
  stack: LocalStack,
  demoFile: string | undefined,
  upgradeWorkspace: (workspaceId: string) => Promise<void>,
): Promise<void> {
  // Loaded only now: repository modules read the environment the stack has just set.
  const { DEMO_ADHERENCE_QUOTES, demoCatalogueSize, ingestAdherenceHistory, ingestSampleCatalogue, seedDemo } =
    await import('#lib/local/seed.ts');
  const { demo, created } = await seedDemo(demoFile, upgradeWorkspace);
  console.log(created ? 'Created the demo workspace:' : 'Demo workspace (from an earlier start):');
  console.log(`  workspace id  ${demo.workspaceId}`);
  console.log(`  connector id  ${demo.connectorId}`);
  console.log('  keys:');
  console.log(`    erp         ${demo.keys.erp}`);
  console.log(`    storefront  ${demo.keys.storefront}`);
  console.log(`    connector   ${demo.keys.connector}`);
  console.log(`    pw_live     ${demo.keys.pwLive}`);
  console.log(`    pw_test     ${demo.keys.pwTest}`);
  console.log(`Console at ${stack.gatewayUrl}/console`);
  console.log(`  sign in as   ${demo.console.email}`);
  console.log(`  password     ${demo.console.password}`);
  console.log('  roles        admin, pricing, finance');
  if (created) {
    const batchId = await ingestSampleCatalogue(stack.gatewayUrl, demo.keys.connector);
    const { products, customers, quotes, orders } = demoCatalogueSize;
    console.log(`Staged a sample catalogue through the ingest API and committed it (batch ${batchId}):`);
    console.log(`  ${products} products, ${customers} customers, ${quotes} quotes and ${orders} orders, draining now`);
    // Once the catalogue has drained, in the background: price calls, then quotes carrying their decision ids.
    ingestAdherenceHistory(stack.gatewayUrl, demo, batchId).then(
      (adherenceBatch) =>
        console.log(
          `Priced lines for ${DEMO_ADHERENCE_QUOTES} quotes and staged the quotes carrying their decision ids (batch ${adherenceBatch}): see \`npm run --silent admin -- adherence report --workspace ${demo.workspaceId}\``,
        ),
      (error: unknown) => console.error(`The demo's adherence history was not staged: ${(error as Error).message}`),
    );
  }
}

/** `npm start`'s flags. */
function startFlags(args: string[]) {
  return parseArgs({
    args,
    options: {
      fresh: { type: 'boolean', default: false },
      'no-seed': { type: 'boolean', default: false },
      // Lets webhook endpoints be http://127.0.0.1 or http://localhost receivers; every other non-public URL stays refused.
      'allow-loopback-webhooks': { type: 'boolean', default: false },
    },
  });
}

function portFrom(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number, not "${value}"`);
  return port;
}
