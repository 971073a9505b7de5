// API keys: their families, scopes, names and the stored record (a SHA-256 hash and the last four characters, never the key itself).
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';

export const keyFamilies = ['svc_live', 'pw_live', 'pw_test'] as const;
export const KeyFamilySchema = v.picklist(keyFamilies);
export type KeyFamily = v.InferOutput<typeof KeyFamilySchema>;

export const scopes = ['erp', 'storefront', 'connector'] as const;
export const ScopeSchema = v.picklist(scopes);
export type Scope = v.InferOutput<typeof ScopeSchema>;

/** A key's name is shown in lists and confirmations: one line of readable text. */
export const MAX_KEY_NAME_LENGTH = 64;

/** Control characters (C0, C1, DEL) and the invisible format characters that reorder or hide text (bidi overrides). */
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

export const KeyNameSchema = v.pipe(
  v.string('the name must be text'),
  v.trim(),
  v.minLength(1, 'the name is empty: give the key a name'),
  v.maxLength(MAX_KEY_NAME_LENGTH, `the name is longer than ${MAX_KEY_NAME_LENGTH} characters`),
  v.check((name) => !UNPRINTABLE.test(name), 'the name has control or invisible formatting characters'),
);

/** The person behind an approval: a console user, the operator (the admin CLI, which has no identity of its own), or a key that records no creator. */
export const personTypes = ['console_user', 'operator', 'api_key'] as const;

/**
 * A person, as a key records its creator and an approval its approver. For a console user, also who made that user
 * and when: a user the first approver made while an approval waits is not a second person (docs/decisions.md).
 */
export const PersonSchema = v.object({
  type: v.picklist(personTypes),
  id: v.string(),
  email: v.optional(v.string()),
  /** The id of the person who made this console user: a console user's id, or `operator`. */
  createdBy: v.optional(v.string()),
  /** When this console user was made. */
  createdAt: v.optional(v.string()),
});
export type Person = v.InferOutput<typeof PersonSchema>;

/** Every key and user the admin CLI (or the local demo seed) makes counts as this one person. */
export const OPERATOR: Person = { type: 'operator', id: 'operator' };

export const ApiKeyRecordSchema = v.object({
  keyId: v.string(),
  workspaceId: v.string(),
  /** Given at creation; keys made before keys had names have none. */
  name: v.optional(v.string()),
  /** The plaintext's last four characters, kept so that a key can be recognised and found; absent on older keys. */
  lastFour: v.optional(v.string()),
  /**
   * When the key last authenticated a request, to within LAST_USE_RESOLUTION_MS (usage.ts): kept on the listing
   * item only, and written at most once per key in that time.
   */
  lastUsedAt: v.optional(v.string()),
  family: KeyFamilySchema,
  /** Empty for pw_ keys: the overview surface has no scopes. */
  scopes: v.array(ScopeSchema),
  /** Set exactly when the key carries the connector scope. */
  connectorId: v.optional(v.string()),
  createdAt: v.string(),
  revokedAt: v.optional(v.string()),
  /**
   * A revocation scheduled for later (ISO): a key rotated with a grace period works until then, and is refused from
   * then on as if revoked.
   */
  revokeAt: v.optional(v.string()),
  /** The key this one replaced, when it was made by rotating that one. */
  rotatedFrom: v.optional(v.string()),
  /** Who made the key (or rotated it into being), who saw its secret: the key approves as that person. Absent on older keys. */
  createdBy: v.optional(PersonSchema),
});
export type ApiKeyRecord = v.InferOutput<typeof ApiKeyRecordSchema>;

/** The name as stored (trimmed), or invalid_request naming `name` with what is wrong with it. */
export function readKeyName(raw: unknown): string {
  const checked = v.safeParse(KeyNameSchema, raw);
  if (checked.success) return checked.output;
  throw new ApiError('invalid_request', `${checked.issues[0].message}.`, { param: 'name' });
}
