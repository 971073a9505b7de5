// API key items in the table: issue a key (stored as its SHA-256 only), find it, revoke it.
import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { tableName } from '../config.ts';
import { getConnector } from '../connectors/repository.ts';
import { ApiError } from '../errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { tableClient } from '../table/client.ts';
import { keys, lookupKeys } from '../table/keys.ts';
import { queryLookup } from '../table/query.ts';
import { putWorkspaceItem } from '../workspaces/repository.ts';
import { type ApiKeyRecord, ApiKeyRecordSchema, type KeyFamily, type Scope } from './schema.ts';

/** 40 base62 characters: about 238 bits, above the 32 characters the contract asks for. */
const SECRET_LENGTH = 40;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface KeyGrant {
  readonly workspaceId: string;
  readonly family: KeyFamily;
  readonly scopes: readonly Scope[];
  readonly connectorId?: string;
}

/** The rules a grant must meet before a key is minted for it; throws invalid_request naming the offending part. */
export function checkGrant(grant: KeyGrant): void {
  if (grant.family === 'svc_live') {
    if (grant.scopes.length === 0) throw new ApiError('invalid_request', 'a svc_live key needs at least one scope', { param: 'scopes' });
  } else if (grant.scopes.length > 0) {
    throw new ApiError('invalid_request', `${grant.family} keys carry no scopes: they serve the overview surface only`, {
      param: 'scopes',
    });
  }
  const isConnectorKey = grant.scopes.includes('connector');
  if (isConnectorKey && !grant.connectorId) {
    throw new ApiError('invalid_request', 'a key with the connector scope belongs to one connector: name it', { param: 'connector' });
  }
  if (!isConnectorKey && grant.connectorId) {
    throw new ApiError('invalid_request', 'only a key with the connector scope belongs to a connector', { param: 'connector' });
  }
}

export interface IssuedKey {
  readonly keyId: string;
  /** The plaintext, shown once: only its hash is kept. */
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export async function issueApiKey(grant: KeyGrant, now = new Date()): Promise<IssuedKey> {
  checkGrant(grant);
  if (grant.connectorId && !(await getConnector(grant.workspaceId, grant.connectorId))) {
    throw new ApiError('not_found', `connector ${grant.connectorId} does not exist in workspace ${grant.workspaceId}`);
  }
  const key = `${grant.family}_${randomBase62(SECRET_LENGTH)}`;
  const record = v.parse(ApiKeyRecordSchema, {
    keyId: newId('key'),
    workspaceId: grant.workspaceId,
    family: grant.family,
    scopes: [...grant.scopes],
    connectorId: grant.connectorId,
    createdAt: now.toISOString(),
  });
  await putWorkspaceItem(grant.workspaceId, {
    ...keys.apiKey(hashApiKey(key)),
    ...lookupKeys.apiKeyById(record.keyId),
    type: 'apiKey',
    ...record,
  });
  return { keyId: record.keyId, key, record };
}

export async function findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await tableClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(keyHash) }));
  return Item ? v.parse(ApiKeyRecordSchema, Item) : undefined;
}

export async function revokeApiKey(keyId: string, now = new Date()): Promise<{ keyId: string; revokedAt: string }> {
  const [found] = await queryLookup(lookupKeys.apiKeysWithId(keyId), 1);
  if (!found) throw new ApiError('not_found', `key ${keyId} does not exist`);
  const revokedAt = now.toISOString();
  // Revoking twice keeps the first time: the key stopped working then.
  const { Attributes } = await tableClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { PK: found.PK, SK: found.SK },
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':at': revokedAt },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return { keyId, revokedAt: String(Attributes?.revokedAt ?? revokedAt) };
}
