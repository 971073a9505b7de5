// The load a heat model is figured for (the profile, and the default and 10,000-call ones), and the request kinds whose steps it sums.

export interface LoadProfile {
  /** Price calls a second, per workspace. */
  readonly priceCallsPerSecond: number;
  readonly linesPerCall: number;
  /** Share of price calls that name a customer (0 to 1). */
  readonly customerShare: number;
  /** Distinct categories among a call's lines. */
  readonly categoriesPerCall: number;
  readonly ingestRecordsPerSecond: number;
  readonly claimsPerSecond: number;
  readonly approvalsPerSecond: number;
  readonly webhookDeliveriesPerSecond: number;
  /** Workspaces at this load: only keys shared by every workspace (the sweeper's lists) add them up. */
  readonly workspaces: number;
  /** How many keys a workspace's load spreads over, for keys with a product, customer or category in them. */
  readonly products: number;
  readonly customers: number;
  readonly categories: number;
  readonly connectors: number;
  readonly webhookEndpoints: number;
  /** Function instances serving the workspace: what per-instance caches and once-a-minute flushes multiply by. */
  readonly instances: number;
  /**
   * The workspace's rate limit, requests a second, which sets how many shards its rate window spreads over; 0 takes the
   * profile's own /api/v1 requests a second, as a seller raises the limit to the load.
   */
  readonly rateLimit: number;
}

export const defaultProfile: LoadProfile = {
  priceCallsPerSecond: 50,
  linesPerCall: 100,
  customerShare: 1,
  categoriesPerCall: 8,
  ingestRecordsPerSecond: 100,
  claimsPerSecond: 1,
  approvalsPerSecond: 1,
  webhookDeliveriesPerSecond: 1,
  workspaces: 100,
  products: 10_000,
  customers: 1_000,
  categories: 20,
  connectors: 1,
  webhookEndpoints: 1,
  instances: 10,
  rateLimit: 0,
};

/** The load issue 34 holds the table to: one workspace's storefront at 10,000 calls of 100 lines, beside 5,000 ingest records a second. */
export const tenThousandProfile: LoadProfile = {
  ...defaultProfile,
  priceCallsPerSecond: 10_000,
  ingestRecordsPerSecond: 5_000,
  instances: 500,
};

export type Figure = number | ((profile: LoadProfile) => number);

/** One pattern's calls on one key family, per unit of a request kind's load (a request, or a second, or an instance-minute). */
export interface HeatStep {
  /** The catalogue entry's name: the model fails if the catalogue no longer has it. */
  readonly pattern: string;
  /** A key builder the entry's key names: `usage`, `listingKeys.recommendationRow`, `lookupKeys.undispatchedEvent`. */
  readonly key: string;
  /** Arguments pinned to one value (the ordering of a list); the others vary as the profile says. */
  readonly args?: Readonly<Record<string, string | undefined>>;
  /** `unit`: per unit of the kind's rate; `second`: once a second; `instance-minute`: once a minute per instance. */
  readonly per?: 'unit' | 'second' | 'instance-minute';
  /** Items read or written per unit. */
  readonly items: Figure;
  /** Units per item. */
  readonly readUnits?: Figure;
  readonly writeUnits?: Figure;
}

export interface RequestKind {
  readonly id: string;
  readonly describe: string;
  /** Units of this kind a second (price calls, thousands of ingest records, ...). */
  readonly rate: (profile: LoadProfile) => number;
  readonly steps: readonly HeatStep[];
}

/** The profile with every rate multiplied by `factor`, and the instances serving it in proportion. */
export function scaleProfile(profile: LoadProfile, factor: number): LoadProfile {
  return {
    ...profile,
    priceCallsPerSecond: profile.priceCallsPerSecond * factor,
    ingestRecordsPerSecond: profile.ingestRecordsPerSecond * factor,
    claimsPerSecond: profile.claimsPerSecond * factor,
    approvalsPerSecond: profile.approvalsPerSecond * factor,
    webhookDeliveriesPerSecond: profile.webhookDeliveriesPerSecond * factor,
    instances: Math.max(1, profile.instances * factor),
    rateLimit: profile.rateLimit * factor,
  };
}
