// Workspaces: the tenant record with its status, base currency, features and limits.
import * as v from 'valibot';
import { PricingOverridesSchema } from '#shared/pricing/settings.ts';

export const features = ['writebacks', 'storefront', 'overview'] as const;
export const FeatureSchema = v.picklist(features);
export type Feature = v.InferOutput<typeof FeatureSchema>;

export const WorkspaceStatusSchema = v.picklist(['active', 'inactive']);
export type WorkspaceStatus = v.InferOutput<typeof WorkspaceStatusSchema>;

const positiveInteger = v.pipe(v.number(), v.safeInteger(), v.minValue(1));

/** The limits of a workspace; each has a service-wide default (workspaceDefaults) and may be overridden. */
export const WorkspaceLimitsSchema = v.object({
  /** Requests per second across all of /api/v1. */
  rateLimit: positiveInteger,
  /** Requests per second on the overview surface. */
  overviewRateLimit: positiveInteger,
  /** Priced lines per calendar month (UTC). */
  monthlyLines: positiveInteger,
  /** Records one ingest batch takes before the rest are skipped. */
  batchRecordCap: positiveInteger,
  /**
   * Quote and order lines one ingest batch takes: they are what a drain writes, one item each. A workspace stored
   * before the cap existed has the default.
   */
  batchLineCap: v.optional(positiveInteger, 1_000_000),
  /**
   * Connectors the workspace may have: each approval publishes a task to every one that takes write-backs, within
   * its request; at most 200, so that what is left past an approval's first transaction fits one item. A workspace
   * stored before the limit existed has the default.
   */
  connectorLimit: v.optional(v.pipe(positiveInteger, v.maxValue(200)), 50),
});
export type WorkspaceLimits = v.InferOutput<typeof WorkspaceLimitsSchema>;

export const CurrencyCodeSchema = v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'a three-letter ISO 4217 code'));

export const WorkspaceSchema = v.object({
  workspaceId: v.string(),
  name: v.pipe(v.string(), v.minLength(1)),
  status: WorkspaceStatusSchema,
  baseCurrency: CurrencyCodeSchema,
  features: v.array(FeatureSchema),
  ...WorkspaceLimitsSchema.entries,
  /** The pricing settings this workspace overrides; the rest follow the defaults. */
  pricing: v.optional(PricingOverridesSchema),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type Workspace = v.InferOutput<typeof WorkspaceSchema>;

export const workspaceDefaults = {
  status: 'active',
  baseCurrency: 'USD',
  features: [...features],
  rateLimit: 100,
  overviewRateLimit: 20,
  monthlyLines: 1_000_000,
  batchRecordCap: 100_000,
  batchLineCap: 1_000_000,
  connectorLimit: 50,
} as const satisfies Omit<Workspace, 'workspaceId' | 'name' | 'createdAt' | 'updatedAt'>;
