// The one DynamoDB table: its key schema, indexes and TTL, read by the CDK stack and by local mode alike.

export interface IndexDefinition {
  /** Named after the access patterns it serves (see keys.ts). */
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  /** KEYS_ONLY keeps index writes at their minimum: readers follow the key back to the base item. */
  readonly projection: 'KEYS_ONLY' | 'ALL';
}

export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey: string;
  /** Epoch seconds; DynamoDB deletes the item some time after it passes. */
  readonly ttlAttribute: string;
  readonly indexes: readonly IndexDefinition[];
}

export const table = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expiresAt',
  indexes: [
    // Alternate keys: an item found by something other than its primary key (an API key by its id, a product by
    // its external id). Line items of the older layout carry one per line; nothing new writes those.
    { name: 'lookup', partitionKey: 'lookupPk', sortKey: 'lookupSk', projection: 'KEYS_ONLY' },
    // Line items of the older layout by category and customer segment, projected whole. The history log has taken
    // its place; it is read, for lines not yet migrated, until `history migrate` has emptied it everywhere, and only
    // then removed. CloudFormation adds or removes one index per stack update.
    { name: 'history', partitionKey: 'historyPk', sortKey: 'historySk', projection: 'ALL' },
    // Write-back tasks a connector may claim, by the time they became claimable. Sparse: a task is in it only while it
    // is pending or leased, so a claim reads claimable tasks alone. Keys only: a claim leases by the base key anyway.
    { name: 'claimable', partitionKey: 'claimPk', sortKey: 'claimSk', projection: 'KEYS_ONLY' },
    // What the console lists: a workspace's recommendations by SKU, and each connector's batches and write-back tasks,
    // newest first. Projected whole, so that a page of a list is one Query rather than a Query and a read per item.
    { name: 'listing', partitionKey: 'listPk', sortKey: 'listSk', projection: 'ALL' },
    // Every workspace's open write-back tasks, oldest first, over a few partitions: the sweeper reads the oldest of each
    // once a minute for the alarm on tasks that wait. Sparse: a task is in it only while open, by a one-character shard
    // (`ot`), sorted by the creation time it carries anyway, so that a task item grows by three bytes, not by a key.
    { name: 'openTasks', partitionKey: 'ot', sortKey: 'createdAt', projection: 'KEYS_ONLY' },
  ],
} as const satisfies TableDefinition;

export type IndexName = (typeof table.indexes)[number]['name'];
