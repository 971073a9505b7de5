// API keys: their families, scopes and the stored record (a SHA-256 hash, never the key itself).
import * as v from 'valibot';

export const keyFamilies = ['svc_live', 'pw_live', 'pw_test'] as const;
export const KeyFamilySchema = v.picklist(keyFamilies);
export type KeyFamily = v.InferOutput<typeof KeyFamilySchema>;

export const scopes = ['erp', 'storefront', 'connector'] as const;
export const ScopeSchema = v.picklist(scopes);
export type Scope = v.InferOutput<typeof ScopeSchema>;

export const ApiKeyRecordSchema = v.object({
  keyId: v.string(),
  workspaceId: v.string(),
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
});
export type ApiKeyRecord = v.InferOutput<typeof ApiKeyRecordSchema>;
