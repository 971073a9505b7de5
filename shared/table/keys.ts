// The table's keys: every key builder, and beside them every access pattern with the call that serves it and its cost.
import { table } from './definition.ts';

export interface PrimaryKey {
  readonly PK: string;
  readonly SK: string;
}

export const keys = {
  /** The tenant record; connectors share its partition. */
  workspace: (workspaceId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: 'WORKSPACE' }),
  connector: (workspaceId: string, connectorId: string): PrimaryKey => ({ PK: `WS#${workspaceId}`, SK: `CONNECTOR#${connectorId}` }),
  connectorPrefix: (workspaceId: string) => ({ PK: `WS#${workspaceId}`, SKPrefix: 'CONNECTOR#' }),
  /**
   * Keyed by the SHA-256 of the key, so the one lookup on every request is a GetItem and the plaintext is never
   * stored. Each key is its own partition: authentication spreads evenly.
   */
  apiKey: (keyHash: string): PrimaryKey => ({ PK: `APIKEY#${keyHash}`, SK: 'APIKEY' }),
  /** The workspace id is part of the partition key, so another workspace's batch id can never be found. */
  batch: (workspaceId: string, batchId: string): PrimaryKey => ({ PK: `WS#${workspaceId}#BATCH#${batchId}`, SK: 'BATCH' }),
} as const;

/** Alternate keys, written on the base item and served by the `lookup` index (KEYS_ONLY). */
export const lookupKeys = {
  apiKeyById: (keyId: string) => ({ [table.indexes[0].partitionKey]: `APIKEYID#${keyId}`, [table.indexes[0].sortKey]: 'APIKEY' }),
} as const;

export interface AccessPattern {
  readonly name: string;
  /** Who runs it: a route id, `admin`, or a worker. */
  readonly usedBy: readonly string[];
  readonly call: string;
  readonly key: string;
  /** In capacity units, at on-demand prices one read unit is one read request unit, one write unit one write request unit. */
  readonly cost: string;
}

/**
 * Every way the service touches the table. Sizes assume the items as written today (all well under 1 KB).
 * Eventually consistent reads cost 0.5 units per 4 KB; writes 1 unit per KB; transactional writes 2 per KB.
 */
export const accessPatterns: readonly AccessPattern[] = [
  {
    name: 'Authenticate a request by its API key',
    usedBy: ['every /api/v1 and /v1 route'],
    call: 'GetItem, eventually consistent',
    key: 'apiKey(sha256(key))',
    cost: '0.5 RRU on a cache miss; cached per instance for 60 s, so 0 on most requests',
  },
  {
    name: "Read a key's workspace (status, features, limits)",
    usedBy: ['every /api/v1 and /v1 route'],
    call: 'GetItem, eventually consistent',
    key: 'workspace(workspaceId)',
    cost: '0.5 RRU on a cache miss; cached per instance for 60 s',
  },
  {
    name: 'Open an ingest batch',
    usedBy: ['openBatch'],
    call: 'PutItem with attribute_not_exists(PK)',
    key: 'batch(workspaceId, batchId)',
    cost: '1 WRU',
  },
  {
    name: 'Create a workspace',
    usedBy: ['admin workspace create'],
    call: 'PutItem with attribute_not_exists(PK)',
    key: 'workspace(workspaceId)',
    cost: '1 WRU',
  },
  {
    name: "Update a workspace's status, features or limits",
    usedBy: ['admin workspace update'],
    call: 'UpdateItem with attribute_exists(PK), ReturnValues ALL_NEW',
    key: 'workspace(workspaceId)',
    cost: '1 WRU',
  },
  {
    name: 'Create a connector',
    usedBy: ['admin connector create'],
    call: 'TransactWriteItems: ConditionCheck workspace exists + Put connector',
    key: 'workspace(workspaceId), connector(workspaceId, connectorId)',
    cost: '4 WRU (2 per item)',
  },
  {
    name: 'Read a connector',
    usedBy: ['admin key create'],
    call: 'GetItem, strongly consistent',
    key: 'connector(workspaceId, connectorId)',
    cost: '1 RRU',
  },
  {
    name: 'Create an API key',
    usedBy: ['admin key create'],
    call: 'TransactWriteItems: ConditionCheck workspace exists + Put key',
    key: 'workspace(workspaceId), apiKey(hash), with lookup key apiKeyById(keyId)',
    cost: '4 WRU, plus 1 WRU for the lookup index entry',
  },
  {
    name: 'Find an API key by its id',
    usedBy: ['admin key revoke'],
    call: 'Query on the lookup index (KEYS_ONLY)',
    key: 'apiKeyById(keyId)',
    cost: '0.5 RRU',
  },
  {
    name: 'Revoke an API key',
    usedBy: ['admin key revoke'],
    call: 'UpdateItem with attribute_exists(PK)',
    key: 'apiKey(hash)',
    cost: '1 WRU, plus 1 WRU for the lookup index entry',
  },
];
