// The whole service on one machine: DynamoDB Local, the SQS emulator, the queue pollers and the HTTP gateway, wired as the stack wires AWS.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environmentNames, serviceName } from '#platform/config.ts';
import { type QueueId, queues } from '#platform/queues.ts';
import { consoleRoutes, workers as definedWorkers, fallbackRoute, type QueueWorker, routes, scheduledJobs } from '#edge/routes.ts';
import { table } from '#platform/table/definition.ts';
import { dataKeyFileEnvironmentName } from '#shared/webhooks/secrets.ts';
import { allowLoopbackEnvironmentName } from '#shared/webhooks/url-guard.ts';
import { createTable, type DynamoDbLocal, localCredentials, localDynamoDbClient, startDynamoDbLocal, tableStreamArn } from './dynamodb.ts';
import { type Gateway, type GatewayOptions, startGateway } from './gateway.ts';
import { type AnyHandler, loadHandler } from './handlers.ts';
import { invokeWithTimeout, LOCAL_ACCOUNT, LOCAL_REGION } from './lambda-context.ts';
import { type QueuePoller, startQueuePoller } from './queue-poller.ts';
import { createQueues, type LocalQueue, localSqsClient, type SqsEmulator, startSqsEmulator } from './queues.ts';

export interface LocalStackOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly dynamoDbPort?: number;
  readonly sqsPort?: number;
  /** Where data persists between starts; without it everything is held in memory and gone at stop. */
  readonly dataDir?: string;
  /** Where to describe the running stack for other tools (stack.json); nothing is written without it. */
  readonly stateDir?: string;
  readonly tableName?: string;
  readonly workers?: readonly QueueWorker[];
  /** Handlers that replace a worker's own by its id: tests wrap the drain to inject faults. */
  readonly workerHandlers?: Readonly<Record<string, AnyHandler>>;
  /** Tests shorten it to see redeliveries in seconds; the default is the stack's. */
  readonly visibilityTimeoutSeconds?: number;
  readonly onWorkerError?: (worker: string, error: unknown) => void;
  /**
   * Webhook delivery in local mode. `allowLoopbackHttp` lets endpoints be `http://127.0.0.1` receivers (an explicit
   * switch, off by default); tests scale the retry schedule down, shorten the receivers' timeout and the sweeper's
   * interval, so that they never wait real minutes. Unset, each is as deployed.
   */
  readonly webhooks?: {
    readonly allowLoopbackHttp?: boolean;
    readonly retryScale?: number;
    readonly timeoutMs?: number;
    readonly sweepIntervalMs?: number;
    /** How long an open circuit breaker defers an endpoint; unset, scaled as the retry schedule is. */
    readonly breakerCoolOffMs?: number;
  };
  /** Tests only: the integration run checks every answer of the gateway against the OpenAPI documents. */
  readonly onExchange?: GatewayOptions['onExchange'];
  /**
   * Tests only: the table streams the keys of every write, so that a test reads a workspace's items partition by
   * partition rather than by a Scan whose time grows with everything the run has written.
   */
  readonly tableKeysStream?: boolean;
  /**
   * Tests only: multiplies every route function's timeout. The shared test stack runs on a busy machine, in one
   * process, many requests at once: there a slow answer must not turn into API Gateway's 503. Timeouts are tested on
   * gateways of their own, at their real length. Workers keep theirs: their queues' visibility timeouts follow them.
   */
  readonly timeoutScale?: number;
}

export interface LocalStackDescription {
  readonly gatewayUrl: string;
  readonly dynamoDbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly region: string;
  readonly tableName: string;
  /** Set when the stack was started with `tableKeysStream`. */
  readonly tableStreamArn?: string;
  readonly queues: Record<QueueId, LocalQueue>;
  /** The file of the data key that seals webhook signing secrets: the path, never the key, goes into stack.json. */
  readonly webhookDataKeyFile?: string;
  /** Whether webhook endpoints may be `http://127.0.0.1` or `http://localhost` (`npm start -- --allow-loopback-webhooks`). */
  readonly allowLoopbackWebhooks?: boolean;
}

export interface LocalStack extends LocalStackDescription {
  stop(): Promise<void>;
}

/** What handlers read from their environment, as the stack sets it for each Lambda function. */
export function handlerEnvironment(description: Omit<LocalStackDescription, 'gatewayUrl'>): Record<string, string> {
  return {
    [environmentNames.tableName]: description.tableName,
    [environmentNames.drainQueueUrl]: description.queues.drain.url,
    [environmentNames.drainDeadLetterQueueUrl]: description.queues.drain.deadLetterUrl,
    [environmentNames.webhooksQueueUrl]: description.queues.webhooks.url,
    [environmentNames.webhooksDeadLetterQueueUrl]: description.queues.webhooks.deadLetterUrl,
    ...(description.webhookDataKeyFile ? { [dataKeyFileEnvironmentName]: description.webhookDataKeyFile } : {}),
    ...(description.allowLoopbackWebhooks ? { [allowLoopbackEnvironmentName]: '1' } : {}),
    AWS_REGION: description.region,
    AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: description.dynamoDbEndpoint,
    AWS_ENDPOINT_URL_SQS: description.sqsEndpoint,
    POWERTOOLS_SERVICE_NAME: serviceName,
    // X-Ray traces are for Lambda; locally there is no daemon to send segments to.
    POWERTOOLS_TRACE_ENABLED: 'false',
    // EMF lines are for CloudWatch; locally the cost log line says the same.
    POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
    // The cost ledger flushes at the end of every request, so that `cost report` shows a call at once; the bench sets
    // the deployed age to measure what the ledger costs.
    COST_LEDGER_FLUSH_SECONDS: process.env.COST_LEDGER_FLUSH_SECONDS ?? '0',
    // Likewise a price call sees bands the moment the bands job writes them, and the usage item's lines are the lines
    // charged at once: no instance holds a lease of quota lines. The bench sets the deployed values to measure them.
    PRICE_BANDS_CACHE_SECONDS: process.env.PRICE_BANDS_CACHE_SECONDS ?? '0',
    QUOTA_LEASE_LINES: process.env.QUOTA_LEASE_LINES ?? '0',
  };
}

/**
 * The data key of local mode: random text in a file beside the data (so that sealed secrets open after a restart), or
 * in a temporary directory when nothing persists. Created once, readable by its owner only.
 */
function webhookDataKeyFile(dir: string | undefined): string {
  const directory = dir ?? mkdtempSync(join(tmpdir(), 'pricing-webhook-key-'));
  mkdirSync(directory, { recursive: true });
  const file = join(directory, 'webhook-data-key');
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600 });
  return file;
}

/** The test switches of local webhook delivery, as the handlers read them from their environment. */
function webhookEnvironment(webhooks: LocalStackOptions['webhooks'] = {}): Record<string, string> {
  return {
    ...(webhooks.retryScale === undefined ? {} : { [environmentNames.webhookRetryScale]: String(webhooks.retryScale) }),
    ...(webhooks.timeoutMs === undefined ? {} : { [environmentNames.webhookTimeoutMs]: String(webhooks.timeoutMs) }),
    ...(webhooks.breakerCoolOffMs === undefined ? {} : { [environmentNames.webhookBreakerCoolOffMs]: String(webhooks.breakerCoolOffMs) }),
  };
}

/** One queue poller per worker, as its event source mapping would invoke it; each stopped with the stack. */
async function startWorkers(
  options: LocalStackOptions,
  sqs: ReturnType<typeof localSqsClient>,
  localQueues: Awaited<ReturnType<typeof createQueues>>,
  stops: Array<() => Promise<void>>,
): Promise<void> {
  for (const worker of options.workers ?? definedWorkers) {
    const queue = queues[worker.queue];
    const poller: QueuePoller = startQueuePoller({
      sqs,
      queueUrl: localQueues[worker.queue].url,
      queueArn: localQueues[worker.queue].arn,
      fn: { name: worker.id, memoryMb: worker.memoryMb, timeoutSeconds: queue.consumerTimeoutSeconds },
      handler: options.workerHandlers?.[worker.id] ?? (await loadHandler(worker.entry)),
      batchSize: worker.batchSize,
      // As the event source's maximum concurrency: so many invocations at once, and no more.
      concurrency: worker.maxConcurrency,
      onInvocationError: (error) => options.onWorkerError?.(worker.id, error),
    });
    stops.push(() => poller.stop());
  }
}

/** The scheduled jobs, each on a timer cleared with the stack, after its run under way ends. */
async function scheduleJobs(options: LocalStackOptions, stops: Array<() => Promise<void>>): Promise<void> {
  // Scheduled jobs run on a timer, as EventBridge runs them; one run at a time, and never past stop.
  for (const job of scheduledJobs) {
    const handler = await loadHandler(job.entry);
    const fn = { name: job.id, memoryMb: job.memoryMb, timeoutSeconds: job.timeoutSeconds };
    let running: Promise<unknown> | undefined;
    const timer = setInterval(
      () => {
        // As EventBridge invokes it: a scheduled event, a Lambda context, and the function's timeout.
        const event = {
          source: 'aws.events',
          'detail-type': 'Scheduled Event',
          time: new Date().toISOString(),
          region: LOCAL_REGION,
          account: LOCAL_ACCOUNT,
          detail: {},
        };
        running ??= invokeWithTimeout(fn, handler, event)
          .catch((error: unknown) => options.onWorkerError?.(job.id, error))
          .finally(() => {
            running = undefined;
          });
      },
      job.id === 'sweepWebhookOutbox' && options.webhooks?.sweepIntervalMs ? options.webhooks.sweepIntervalMs : job.everyMinutes * 60_000,
    );
    timer.unref();
    stops.push(async () => {
      clearInterval(timer);
      await running;
    });
  }
}

/** The gateway over every route and the console's, their timeouts scaled for a slow machine. */
function startStackGateway(options: LocalStackOptions, timeoutScale: number): Promise<Gateway> {
  return startGateway({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 0,
    routes: [...routes, ...consoleRoutes].map((route) => ({
      ...route,
      name: route.id,
      timeoutSeconds: route.timeoutSeconds * timeoutScale,
    })),
    fallback: { ...fallbackRoute, name: fallbackRoute.id, timeoutSeconds: fallbackRoute.timeoutSeconds * timeoutScale },
    onExchange: options.onExchange,
  });
}

/** The running stack's description, where `npm run admin` and the connector find it; removed when the stack stops. */
function writeStateFile(stateDir: string, running: LocalStackDescription, stops: Array<() => Promise<void>>): void {
  mkdirSync(stateDir, { recursive: true });
  const stateFile = join(stateDir, 'stack.json');
  writeFileSync(stateFile, `${JSON.stringify(running, null, 2)}\n`);
  stops.push(async () => rmSync(stateFile, { force: true }));
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  const timeoutScale = options.timeoutScale ?? 1;
  try {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const dynamo: DynamoDbLocal = await startDynamoDbLocal({
      port: options.dynamoDbPort,
      dataDir: options.dataDir && join(options.dataDir, 'dynamodb'),
    });
    stops.push(() => dynamo.stop());
    const sqsEmulator: SqsEmulator = await startSqsEmulator({
      port: options.sqsPort,
      dataDir: options.dataDir && join(options.dataDir, 'sqs'),
    });
    stops.push(() => sqsEmulator.stop());

    const tableName = options.tableName ?? serviceName;
    const dynamoClient = localDynamoDbClient(dynamo.endpoint);
    await createTable(dynamoClient, tableName, table, { keysStream: options.tableKeysStream });
    const streamArn = options.tableKeysStream ? await tableStreamArn(dynamoClient, tableName) : undefined;
    dynamoClient.destroy();
    const sqs = localSqsClient(sqsEmulator.endpoint);
    stops.push(async () => sqs.destroy());
    const localQueues = await createQueues(sqs, queues, tableName, { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds });

    const description = {
      dynamoDbEndpoint: dynamo.endpoint,
      sqsEndpoint: sqsEmulator.endpoint,
      region: LOCAL_REGION,
      tableName,
      ...(streamArn ? { tableStreamArn: streamArn } : {}),
      queues: localQueues,
      webhookDataKeyFile: webhookDataKeyFile(options.dataDir ?? options.stateDir),
      allowLoopbackWebhooks: options.webhooks?.allowLoopbackHttp === true,
    };
    // One process serves every function, so the environment is set once, before any handler module loads.
    Object.assign(process.env, handlerEnvironment(description), webhookEnvironment(options.webhooks));

    await startWorkers(options, sqs, localQueues, stops);

    await scheduleJobs(options, stops);

    const gateway = await startStackGateway(options, timeoutScale);
    stops.push(() => gateway.stop());

    const running: LocalStackDescription = { gatewayUrl: gateway.url, ...description };
    if (options.stateDir) writeStateFile(options.stateDir, running, stops);
    return { ...running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
