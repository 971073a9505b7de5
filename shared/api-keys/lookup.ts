// Finding a key for an operator: by its id, by its plaintext (hashed, never stored), or by its last four characters.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { getItems } from '#platform/table/bulk.ts';
import { getItem } from '#platform/table/commands.ts';
import { lookupKeys } from '#platform/table/index-keys.ts';
import { queryLookup } from '#platform/table/query.ts';
import { findApiKey, getWorkspaceApiKey, hashApiKey, listApiKeys } from './repository.ts';
import { type ApiKeyRecord, ApiKeyRecordSchema } from './schema.ts';

/** Four characters of base62, as a key ends. */
export const LastFourSchema = v.pipe(v.string(), v.regex(/^[0-9A-Za-z]{4}$/, 'the last four characters of a key (letters and digits)'));

/** A key's record with what its listing item adds (its last use); the key item where the listing item is missing. */
async function withListing(record: ApiKeyRecord): Promise<ApiKeyRecord> {
  return (await getWorkspaceApiKey(record.workspaceId, record.keyId)) ?? record;
}

/** The key with this id, in whatever workspace: the lookup index names its item. */
export async function findApiKeyById(keyId: string): Promise<ApiKeyRecord | undefined> {
  const [found] = await queryLookup(lookupKeys.apiKeysWithId(keyId), 1);
  if (!found) return undefined;
  const Item = await getItem({ Key: { PK: found.PK, SK: found.SK } });
  return Item ? withListing(v.parse(ApiKeyRecordSchema, Item)) : undefined;
}

/** The key whose plaintext this is: hashed as authentication hashes it, and the plaintext kept nowhere. */
export async function findApiKeyByPlaintext(plaintext: string): Promise<ApiKeyRecord | undefined> {
  const record = await findApiKey(hashApiKey(plaintext.trim()));
  return record ? withListing(record) : undefined;
}

/**
 * The keys ending in these four characters: in one workspace, one Query of its listing; across every workspace, one
 * Query of the lookup index's entry for them and a BatchGetItem of the listings it names. Keys issued before last fours
 * were kept are never found this way.
 */
export async function findApiKeysByLastFour(lastFour: string, workspaceId?: string): Promise<ApiKeyRecord[]> {
  if (!v.is(LastFourSchema, lastFour)) {
    throw new ApiError('invalid_request', 'Give the last four characters of a key: letters and digits.', { param: 'lastFour' });
  }
  if (workspaceId !== undefined) return (await listApiKeys(workspaceId)).filter((key) => key.lastFour === lastFour);
  const entries = await queryLookup(lookupKeys.apiKeysWithLastFour(lastFour));
  const items = await getItems(
    entries.map((entry) => ({ PK: String(entry.PK), SK: String(entry.SK) })),
    { consistent: false },
  );
  const found = items.map((item) => v.parse(ApiKeyRecordSchema, item));
  return found.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
