// The partitions each workspace has in the test table, learnt from the table's keys stream, so that a test reads a workspace's items partition by partition and never Scans everything the run has written.
import { createServer, type Server } from 'node:http';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { localCredentials } from '#lib/local/dynamodb.ts';
import type { LocalStackDescription } from '#lib/local/stack.ts';

/** Where a test process finds the registry of the stack it tests (see workspace-items.ts). */
export const partitionRegistryEnvironmentName = 'TEST_PARTITION_REGISTRY_URL';

export interface PartitionRegistry {
  /** `GET {url}/partitions/{workspaceId}` answers the workspace's partition keys, once every write before the call is read. */
  readonly url: string;
  stop(): Promise<void>;
}

export interface PartitionRegistryOptions {
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  readonly streamArn: string;
}

/** Where the registry is in a shard: the iterator to read next, and the last record read to start again from. */
interface ShardPosition {
  iterator?: string;
  lastSequenceNumber?: string;
}

const WORKSPACE_OF_PARTITION = /^WS#([^#]+)/;

class StreamReader {
  readonly partitions = new Map<string, Set<string>>();
  private readonly shards = new Map<string, ShardPosition>();
  private readonly closed = new Set<string>();
  private reading: Promise<void> = Promise.resolve();

  private readonly streams: DynamoDBStreamsClient;
  private readonly streamArn: string;

  constructor(streams: DynamoDBStreamsClient, streamArn: string) {
    this.streams = streams;
    this.streamArn = streamArn;
  }

  /** Reads the stream to its end; calls wait for one another, so that two never read the same shard at once. */
  catchUp(): Promise<void> {
    const next = this.reading.then(() => this.readToEnd());
    this.reading = next.catch(() => undefined);
    return next;
  }

  private async allShards(): Promise<Shard[]> {
    const shards: Shard[] = [];
    let ExclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await this.streams.send(
        new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId }),
      );
      shards.push(...(StreamDescription?.Shards ?? []));
      ExclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (ExclusiveStartShardId);
    return shards;
  }

  private async readToEnd(): Promise<void> {
    for (const shard of await this.allShards()) {
      const id = shard.ShardId;
      if (id && !this.closed.has(id) && !this.shards.has(id)) this.shards.set(id, {});
    }
    for (const [shardId, position] of this.shards) {
      if (await this.readShard(shardId, position)) continue;
      this.shards.delete(shardId);
      this.closed.add(shardId);
    }
  }

  /** Reads a shard as far as it goes; false once the shard is closed and read to its last record. */
  private async readShard(shardId: string, position: ShardPosition): Promise<boolean> {
    for (;;) {
      position.iterator ??= await this.iteratorAt(shardId, position.lastSequenceNumber);
      if (!position.iterator) return false;
      let page;
      try {
        page = await this.streams.send(new GetRecordsCommand({ ShardIterator: position.iterator, Limit: 1000 }));
      } catch (error) {
        // An iterator lapses 15 minutes after it was handed out; a new one starts after the last record read.
        if (!(error instanceof ExpiredIteratorException)) throw error;
        position.iterator = undefined;
        continue;
      }
      for (const record of page.Records ?? []) {
        const partition = record.dynamodb?.Keys?.PK?.S;
        const workspaceId = partition && WORKSPACE_OF_PARTITION.exec(partition)?.[1];
        if (partition && workspaceId) this.partitions.set(workspaceId, (this.partitions.get(workspaceId) ?? new Set()).add(partition));
        position.lastSequenceNumber = record.dynamodb?.SequenceNumber ?? position.lastSequenceNumber;
      }
      position.iterator = page.NextShardIterator;
      if (!position.iterator) return false;
      if ((page.Records ?? []).length === 0) return true;
    }
  }

  private async iteratorAt(shardId: string, afterSequenceNumber: string | undefined): Promise<string | undefined> {
    const { ShardIterator } = await this.streams.send(
      new GetShardIteratorCommand({
        StreamArn: this.streamArn,
        ShardId: shardId,
        ...(afterSequenceNumber
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: afterSequenceNumber }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  }
}

export async function startPartitionRegistry(options: PartitionRegistryOptions): Promise<PartitionRegistry> {
  const streams = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: options.region, credentials: options.credentials });
  const reader = new StreamReader(streams, options.streamArn);
  // Read on a timer too, so that the iterators stay fresh and a request finds little left to read.
  const timer = setInterval(() => void reader.catchUp().catch(() => undefined), 2_000);
  timer.unref();
  const server: Server = createServer((request, response) => {
    const match = /^\/partitions\/([^/?]+)$/.exec(request.url ?? '');
    if (request.method !== 'GET' || !match?.[1]) {
      response.writeHead(404).end();
      return;
    }
    const workspaceId = decodeURIComponent(match[1]);
    reader.catchUp().then(
      () => {
        const partitions = [...(reader.partitions.get(workspaceId) ?? [])].sort();
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(partitions));
      },
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      clearInterval(timer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await reader.catchUp().catch(() => undefined);
      streams.destroy();
    },
  };
}

/**
 * The registry of a stack a test file starts for itself (started with `tableKeysStream`), which this process's reads
 * of a workspace then ask, as `startLocalStack` points this process's handlers at that stack.
 */
export async function registerPartitionsOf(stack: LocalStackDescription): Promise<PartitionRegistry> {
  if (!stack.tableStreamArn) throw new Error('the stack was started without tableKeysStream');
  const registry = await startPartitionRegistry({
    endpoint: stack.dynamoDbEndpoint,
    region: stack.region,
    credentials: localCredentials,
    streamArn: stack.tableStreamArn,
  });
  process.env[partitionRegistryEnvironmentName] = registry.url;
  return registry;
}
