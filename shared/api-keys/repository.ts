// API key items in the table: issue a key (stored as its SHA-256 only), find it, list a workspace's, rotate and revoke it.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { getConnector } from '#shared/connectors/repository.ts';
import { ApiError } from '#platform/errors.ts';
import { newId, randomBase62 } from '#platform/ids.ts';
import { getItems } from '#platform/table/bulk.ts';
import { getItem, putItem, scanPage, updateItem } from '#platform/table/commands.ts';
import { keys } from '#platform/table/keys.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { queryAll, queryLookup } from '#platform/table/query.ts';
import { putWorkspaceItems } from '#shared/workspaces/repository.ts';
import { type ApiKeyRecord, ApiKeyRecordSchema, type KeyFamily, type Person, readKeyName, type Scope } from './schema.ts';

/** 40 base62 characters: about 238 bits, above the 32 characters the contract asks for. */
const SECRET_LENGTH = 40;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface KeyGrant {
  readonly workspaceId: string;
  /** Checked by readKeyName; the console and the admin CLI ask for one, a rotation carries the old key's over. */
  readonly name?: string;
  readonly family: KeyFamily;
  readonly scopes: readonly Scope[];
  readonly connectorId?: string;
  /** The console user or operator making the key; a key made without one approves as itself alone. */
  readonly createdBy?: Person;
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
  // Last: a grant that could never be issued says so before its name is looked at.
  if (grant.name !== undefined) readKeyName(grant.name);
}

export interface IssuedKey {
  readonly keyId: string;
  /** The plaintext, shown once: only its hash is kept. */
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export async function issueApiKey(grant: KeyGrant, now = new Date(), rotatedFrom?: string): Promise<IssuedKey> {
  checkGrant(grant);
  if (grant.connectorId && !(await getConnector(grant.workspaceId, grant.connectorId))) {
    throw new ApiError('not_found', `connector ${grant.connectorId} does not exist in workspace ${grant.workspaceId}`);
  }
  const name = grant.name === undefined ? undefined : readKeyName(grant.name);
  const key = `${grant.family}_${randomBase62(SECRET_LENGTH)}`;
  const record = v.parse(ApiKeyRecordSchema, {
    keyId: newId('key'),
    workspaceId: grant.workspaceId,
    name,
    lastFour: key.slice(-4),
    family: grant.family,
    scopes: [...grant.scopes],
    connectorId: grant.connectorId,
    createdAt: now.toISOString(),
    rotatedFrom,
    createdBy: grant.createdBy,
  });
  // The key and its entry in the workspace's listing, together: the listing never shows a key that does not work.
  await putWorkspaceItems(grant.workspaceId, [
    { ...keys.apiKey(hashApiKey(key)), ...lookupKeys.apiKeyById(record.keyId), type: 'apiKey', ...record },
    { ...keys.apiKeyListing(grant.workspaceId, record.keyId), ...listingLookup(record), type: 'apiKeyListing', ...record },
  ]);
  return { keyId: record.keyId, key, record };
}

/** The listing item's entry by last four, for keys that keep one. */
function listingLookup(record: ApiKeyRecord) {
  return record.lastFour === undefined ? {} : lookupKeys.apiKeyByLastFour(record.lastFour, record.workspaceId, record.keyId);
}

/** A workspace's keys, newest first, as its listing items hold them (the grant and dates, never a hash). */
export async function listApiKeys(workspaceId: string): Promise<ApiKeyRecord[]> {
  const { PK, SKPrefix } = keys.apiKeyListingPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
  });
  return items.map((item) => v.parse(ApiKeyRecordSchema, item)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** One key of the workspace by its id, from its listing item: another workspace's key is not found. */
export async function getWorkspaceApiKey(workspaceId: string, keyId: string): Promise<ApiKeyRecord | undefined> {
  const Item = await getItem({ Key: keys.apiKeyListing(workspaceId, keyId), ConsistentRead: true });
  return Item ? v.parse(ApiKeyRecordSchema, Item) : undefined;
}

/**
 * The names of some of the workspace's keys by id, for pages that name who acted (an approval's history): one
 * BatchGetItem of their listing items, eventually consistent, since a name is only shown. A key with no name, or none
 * left, is not in the map.
 */
export async function apiKeyNames(workspaceId: string, keyIds: readonly string[]): Promise<Map<string, string>> {
  if (keyIds.length === 0) return new Map();
  const items = await getItems(
    [...new Set(keyIds)].map((keyId) => keys.apiKeyListing(workspaceId, keyId)),
    { consistent: false },
  );
  return new Map(
    items.map((item) => v.parse(ApiKeyRecordSchema, item)).flatMap((key) => (key.name === undefined ? [] : [[key.keyId, key.name]])),
  );
}

/**
 * Rotates a key of the workspace: a new key with the same grant, and the old one revoked `graceMs` from now (at once
 * when 0), so that callers have the grace period to switch. Returns the new key, shown once.
 */
export async function rotateApiKey(workspaceId: string, keyId: string, graceMs: number, now = new Date(), by?: Person): Promise<IssuedKey> {
  const old = await getWorkspaceApiKey(workspaceId, keyId);
  if (!old) throw new ApiError('not_found', `key ${keyId} does not exist`);
  checkRotatable(old, now);
  await claimRotation(workspaceId, keyId, now);
  const issued = await issueApiKey(
    // The new secret is seen by whoever rotates: the new key is theirs.
    { workspaceId, name: old.name, family: old.family, scopes: old.scopes, connectorId: old.connectorId, createdBy: by ?? old.createdBy },
    now,
    old.keyId,
  );
  if (graceMs <= 0) await revokeApiKey(keyId, now);
  else await scheduleRevocation(workspaceId, keyId, new Date(now.getTime() + graceMs));
  return issued;
}

/** How long a rotation holds its key against another; a rotation that died past it leaves the key rotatable again. */
const ROTATION_CLAIM_MS = 60_000;

/**
 * Claims the key's rotation before anything is minted, so that of two rotations sent at once one mints a successor and
 * the other is refused: the check above reads, and both could pass it.
 */
async function claimRotation(workspaceId: string, keyId: string, now: Date): Promise<void> {
  const claimed = await updateItem({
    Key: keys.apiKeyListing(workspaceId, keyId),
    UpdateExpression: 'SET rotationClaimedAt = :now',
    ConditionExpression:
      'attribute_exists(PK) AND attribute_not_exists(revokeAt) AND attribute_not_exists(revokedAt) AND ' +
      '(attribute_not_exists(rotationClaimedAt) OR rotationClaimedAt < :stale)',
    ExpressionAttributeValues: { ':now': now.toISOString(), ':stale': new Date(now.getTime() - ROTATION_CLAIM_MS).toISOString() },
  });
  if (claimed.refused) {
    throw new ApiError('invalid_request', `key ${keyId} is being rotated or was already rotated: rotate the key that replaced it`, {
      param: 'keyId',
    });
  }
}

/**
 * A key can be rotated once: one already rotated has its successor and a time it stops working, and rotating it again
 * would mint a second successor and could never move that time later. Throws invalid_request otherwise.
 */
export function checkRotatable(old: ApiKeyRecord, now: Date): void {
  const revoked = old.revokedAt ?? (old.revokeAt !== undefined && Date.parse(old.revokeAt) <= now.getTime() ? old.revokeAt : undefined);
  if (revoked) throw new ApiError('invalid_request', `key ${old.keyId} is revoked: there is nothing to rotate`, { param: 'keyId' });
  if (old.revokeAt) {
    throw new ApiError(
      'invalid_request',
      `key ${old.keyId} was already rotated and stops working at ${old.revokeAt}: rotate the key that replaced it, or revoke this one`,
      { param: 'keyId' },
    );
  }
}

/** Revokes a key of the workspace, and no other workspace's: the console names keys by id, and ids are not secrets. */
export async function revokeWorkspaceApiKey(
  workspaceId: string,
  keyId: string,
  now = new Date(),
): Promise<{ keyId: string; revokedAt: string }> {
  if (!(await getWorkspaceApiKey(workspaceId, keyId))) throw new ApiError('not_found', `key ${keyId} does not exist`);
  return revokeApiKey(keyId, now);
}

/**
 * The keys of the workspace a person made (or rotated into being) that still work: what disabling or deleting a console
 * user lists, and may revoke. One Query of the workspace's key listing.
 */
export async function keysCreatedBy(workspaceId: string, personId: string, nowMs: number): Promise<ApiKeyRecord[]> {
  const listed = await listApiKeys(workspaceId);
  return listed.filter((key) => key.createdBy?.id === personId && !key.revokedAt && !(key.revokeAt && Date.parse(key.revokeAt) <= nowMs));
}

/** Revokes every key of the workspace the person made that still works; returns those it revoked. */
export async function revokeKeysCreatedBy(workspaceId: string, personId: string, now = new Date()): Promise<ApiKeyRecord[]> {
  const working = await keysCreatedBy(workspaceId, personId, now.getTime());
  for (const key of working) await revokeApiKey(key.keyId, now);
  return working;
}

/** Sets the time the key stops working, on the key and its listing item; an earlier time already set stays. */
async function scheduleRevocation(workspaceId: string, keyId: string, at: Date): Promise<void> {
  const [found] = await queryLookup(lookupKeys.apiKeysWithId(keyId), 1);
  if (!found) throw new ApiError('not_found', `key ${keyId} does not exist`);
  const revokeAt = at.toISOString();
  // Refused where the item is gone or an earlier time is set: either way there is nothing to change.
  for (const Key of [{ PK: found.PK, SK: found.SK }, keys.apiKeyListing(workspaceId, keyId)]) {
    await updateItem({
      Key,
      UpdateExpression: 'SET revokeAt = :at',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(revokeAt) OR revokeAt > :at)',
      ExpressionAttributeValues: { ':at': revokeAt },
    });
  }
}

export async function findApiKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const Item = await getItem({ Key: keys.apiKey(keyHash) });
  return Item ? v.parse(ApiKeyRecordSchema, Item) : undefined;
}

export async function revokeApiKey(keyId: string, now = new Date()): Promise<{ keyId: string; revokedAt: string }> {
  const [found] = await queryLookup(lookupKeys.apiKeysWithId(keyId), 1);
  if (!found) throw new ApiError('not_found', `key ${keyId} does not exist`);
  const revokedAt = now.toISOString();
  // Revoking twice keeps the first time: the key stopped working then.
  const revoked = await updateItem({
    Key: { PK: found.PK, SK: found.SK },
    UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':at': revokedAt },
    ReturnValues: 'ALL_NEW',
  });
  if (revoked.refused) throw revoked.error;
  const Attributes = revoked.attributes;
  const at = String(Attributes?.revokedAt ?? revokedAt);
  // The workspace's listing says so too; a key issued before listings were written has none, and that is no fault.
  // Refused where there is no listing item.
  if (typeof Attributes?.workspaceId === 'string') {
    await updateItem({
      Key: keys.apiKeyListing(Attributes.workspaceId, keyId),
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':at': at },
    });
  }
  return { keyId, revokedAt: at };
}

/**
 * Writes the listing item of every key issued before keys had one, so that the console lists them: one Scan of the
 * whole table, reading only the key items, each listing item written only where none is. Run once after upgrading;
 * running it again writes nothing. Returns how many items it wrote.
 */
export async function backfillApiKeyListings(): Promise<{ keys: number; written: number }> {
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  let seen = 0;
  let written = 0;
  do {
    const page = await scanPage({
      FilterExpression: '#type = :apiKey',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':apiKey': 'apiKey' },
      ExclusiveStartKey,
    });
    for (const item of page.Items ?? []) {
      const record = v.parse(ApiKeyRecordSchema, item);
      seen += 1;
      const listed = await putItem({
        Item: { ...keys.apiKeyListing(record.workspaceId, record.keyId), ...listingLookup(record), type: 'apiKeyListing', ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
      if (!listed.refused) written += 1;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { keys: seen, written };
}
