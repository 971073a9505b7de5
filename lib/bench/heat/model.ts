// The heat model: read and write units per second on each partition key of the table (base and index partitions) under a load profile, from the access-pattern catalogue and the per-request call mix, against DynamoDB's per-partition limits.
import { type AccessPattern, accessPatterns } from '#platform/table/access-patterns.ts';
import { keys } from '#platform/table/keys.ts';
import { table } from '#platform/table/definition.ts';
import { claimableKeys, historyKeys, listingKeys, lookupKeys, openTaskKeys } from '#platform/table/index-keys.ts';
import { type Figure, type HeatStep, type LoadProfile, type RequestKind, scaleProfile } from './profile.ts';

// The profile and the request kinds live in profile.ts; importers of the model find them here too.
export { defaultProfile, type HeatStep, type LoadProfile, type RequestKind, scaleProfile, tenThousandProfile } from './profile.ts';

/** DynamoDB's ceiling on one partition key, whatever the table's on-demand capacity (an index's partitions too). */
export const PARTITION_LIMITS = { readUnits: 3_000, writeUnits: 1_000 } as const;

const builderGroups: ReadonlyArray<{ prefix: string; index?: string; builders: Record<string, unknown> }> = [
  { prefix: '', builders: keys },
  { prefix: 'listingKeys.', index: 'listing', builders: listingKeys },
  { prefix: 'lookupKeys.', index: 'lookup', builders: lookupKeys },
  { prefix: 'historyKeys.', index: 'history', builders: historyKeys },
  { prefix: 'claimableKeys.', index: 'claimable', builders: claimableKeys },
  { prefix: 'openTaskKeys.', index: 'openTasks', builders: openTaskKeys },
];

type Builder = (...args: unknown[]) => Record<string, unknown>;

function builderOf(name: string): { builder: Builder; index?: string } {
  for (const group of builderGroups) {
    if (!name.startsWith(group.prefix)) continue;
    const builder = group.builders[name.slice(group.prefix.length)];
    if (typeof builder === 'function') return { builder: builder as Builder, index: group.index };
  }
  throw new Error(`no key builder ${name}`);
}

/** A builder's parameter names, as its source declares them. */
function parameterNames(builder: Builder): string[] {
  const source = builder.toString();
  const list = /^[^(]*\(([^)]*)\)/.exec(source)?.[1] ?? '';
  return list
    .split(',')
    .map((parameter) => parameter.replace(/[:=].*$/s, '').trim())
    .filter(Boolean);
}

/** The partition a builder's key lands on: the base table's PK, or an index's partition key (prefixed with the index). */
function partitionOf(built: Record<string, unknown>, index: string | undefined): string {
  // An index keyed by an attribute of another name (the open tasks' shard, `ot`) names it in the table's definition.
  const indexKey = table.indexes.find((candidate) => candidate.name === index)?.partitionKey;
  const value =
    built.PK ??
    built.partitionKey ??
    Object.entries(built).find(([name]) => /Pk$/.test(name))?.[1] ??
    (indexKey ? built[indexKey] : undefined);
  if (typeof value !== 'string') throw new Error(`a key without a partition: ${JSON.stringify(built)}`);
  return index ? `${index}:${value}` : value;
}

/**
 * What an argument stands for, by its name (and its builder's, for an external id): arguments of one kind make one
 * placeholder, so that a customer's item and its bands, under the same partition key, are one family.
 */
function argumentKind(builderName: string, name: string): string {
  if (/sku/i.test(name) || (name === 'externalId' && /product/i.test(builderName))) return 'sku';
  if (/customer/i.test(name) || (name === 'externalId' && /customer/i.test(builderName))) return 'customer';
  if (/category/i.test(name)) return 'category';
  return name;
}

/** What the spread of one varying argument is, by its kind: how many keys of a workspace the load goes over. */
function argumentSpread(name: string, profile: LoadProfile, rate: number): number {
  if (/^(workspaceId|month|day|route|ordering|window|now)$/.test(name)) return 1;
  if (/sku/i.test(name)) return profile.products;
  if (/customer/i.test(name)) return profile.customers;
  if (/category/i.test(name)) return profile.categories;
  if (/connector/i.test(name)) return profile.connectors;
  if (/endpoint/i.test(name)) return profile.webhookEndpoints;
  if (/^batchId$/.test(name)) return 1;
  if (/keyHash|keyId/.test(name)) return 1;
  // Ids minted per request or record (call digests, documents, events, tasks): each key takes one unit's worth.
  return Math.max(1, rate);
}

export interface ResolvedStep extends HeatStep {
  /** The partition key's shape, with the arguments that vary in angle brackets. */
  readonly family: string;
  readonly catalogue: AccessPattern;
  /** Kinds of the arguments that vary the key, and shards the key is spread over by a hash of an argument or as the catalogue states. */
  readonly varying: readonly string[];
  readonly shards: number;
  /** Shards the catalogue sizes by the workspace's rate limit (its `spread.shards`), beside `shards`. */
  readonly rateShards?: { readonly perRate: number; readonly max: number };
  /** Per-instance cache of the read, as the catalogue states it (`spread.oncePer` in seconds per instance). */
  readonly cachedSeconds?: number;
  /** Lines a run of the pattern serves, as the catalogue states it (`spread.oncePer` in lines: a leased block). */
  readonly perLines?: number;
}

const SAMPLES = 512;

/** The family with the part a hashed argument changes shown as a placeholder, as the arguments that show are. */
function markHashed(family: string, samples: readonly string[], placeholder: string): string {
  const parts = family.split('#');
  const [first, second] = samples.map((sample) => sample.split('#'));
  return parts.map((part, at) => (first?.[at] !== second?.[at] ? placeholder : part)).join('#');
}

const resolved = new WeakMap<readonly AccessPattern[], WeakMap<HeatStep, ResolvedStep>>();

/** Ties a step to the catalogue entry it names, and the key it names to the partition it lands on. */
export function resolveStep(step: HeatStep, catalogue: readonly AccessPattern[] = accessPatterns): ResolvedStep {
  const known = resolved.get(catalogue) ?? new WeakMap<HeatStep, ResolvedStep>();
  resolved.set(catalogue, known);
  const hit = known.get(step);
  if (hit) return hit;
  const result = resolveAgainst(step, catalogue);
  known.set(step, result);
  return result;
}

function resolveAgainst(step: HeatStep, catalogue: readonly AccessPattern[]): ResolvedStep {
  const entry = catalogue.find((pattern) => pattern.name === step.pattern);
  if (!entry) throw new Error(`the access-pattern catalogue has no pattern "${step.pattern}"`);
  const shortName = step.key.slice(step.key.lastIndexOf('.') + 1);
  if (!new RegExp(`\\b${shortName}\\b`).test(entry.key)) {
    throw new Error(`the catalogue's "${step.pattern}" no longer names ${step.key} (its key: ${entry.key})`);
  }
  const { builder, index } = builderOf(step.key);
  const names = parameterNames(builder);
  const kindOf = (name: string) => argumentKind(step.key, name);
  const valueOf = (name: string, sample?: number) =>
    name in (step.args ?? {}) ? step.args?.[name] : sample === undefined ? `<${kindOf(name)}>` : `${name}-${sample}`;
  let family = partitionOf(builder(...names.map((name) => valueOf(name))), index);
  const showing = names.filter((name) => !(name in (step.args ?? {})) && family.includes(`<${kindOf(name)}>`));
  const rateShards = entry.spread?.shards;
  const stated = rateShards ? undefined : /(\d+) [a-z ]*?(?:shards|partitions)/.exec(`${entry.key} ${entry.call}`)?.[1];
  // A shard the caller picks shows in the key, as many ways as the catalogue says it is spread.
  const shardArguments = showing.filter((name) => /shard/i.test(name));
  if (shardArguments.length > 0 && stated === undefined && !rateShards)
    throw new Error(`the catalogue's "${step.pattern}" does not say over how many shards`);
  const varying: string[] = showing.filter((name) => !shardArguments.includes(name)).map(kindOf);
  // An argument the key hashes does not show in it: one whose every value makes a key of its own varies as if it showed
  // (a category's digest), one hashed into a few partitions spreads the load over those (the history log's shards).
  let shards = shardArguments.length > 0 && stated !== undefined ? Number(stated) : 1;
  for (const name of names.filter((candidate) => !(candidate in (step.args ?? {})) && !showing.includes(candidate))) {
    const seen = new Set(
      Array.from({ length: SAMPLES }, (_, sample) =>
        partitionOf(builder(...names.map((other) => (other === name ? valueOf(other, sample) : valueOf(other)))), index),
      ),
    );
    if (seen.size === SAMPLES) varying.push(kindOf(name));
    else shards *= seen.size;
    if (seen.size > 1) family = markHashed(family, [...seen], seen.size === SAMPLES ? `<${kindOf(name)}>` : '<shard>');
  }
  if (stated !== undefined && shards === 1 && /over \d+ (?:shards|partitions)/.test(entry.key)) shards = Number(stated);
  const oncePer = entry.spread?.oncePer;
  return {
    ...step,
    family,
    catalogue: entry,
    varying,
    shards,
    ...(rateShards && shardArguments.length > 0 ? { rateShards } : {}),
    ...(oncePer?.unit === 'seconds per instance' ? { cachedSeconds: oncePer.count } : {}),
    ...(oncePer?.unit === 'lines' ? { perLines: oncePer.count } : {}),
  };
}

function figure(value: Figure | undefined, profile: LoadProfile): number {
  return typeof value === 'function' ? value(profile) : (value ?? 0);
}

export interface FamilyFigures {
  items: number;
  readUnits: number;
  writeUnits: number;
}

/**
 * What one unit of a request kind costs on each key family, as the model has it on a warm instance: per-second and
 * per-instance steps, reads a per-instance cache answers, and the block a lease takes once in many calls are left out.
 */
export function unitsPerRequest(kind: RequestKind, profile: LoadProfile, catalogue?: readonly AccessPattern[]): Map<string, FamilyFigures> {
  const families = new Map<string, FamilyFigures>();
  for (const step of kind.steps.map((candidate) => resolveStep(candidate, catalogue))) {
    if ((step.per ?? 'unit') !== 'unit' || step.cachedSeconds !== undefined || step.perLines !== undefined) continue;
    const items = figure(step.items, profile);
    const sum = families.get(step.family) ?? { items: 0, readUnits: 0, writeUnits: 0 };
    families.set(step.family, sum);
    sum.items += items;
    sum.readUnits += items * figure(step.readUnits, profile);
    sum.writeUnits += items * figure(step.writeUnits, profile);
  }
  return families;
}

export interface KeyHeat {
  readonly family: string;
  /** How many keys the family's load spreads over, per workspace; the figures are the hottest one's. */
  readonly keys: number;
  readonly readUnits: number;
  readonly writeUnits: number;
  /** Of the partition limits: the larger of reads over 3,000 and writes over 1,000. */
  readonly share: number;
  readonly kinds: readonly string[];
}

interface Accumulated {
  keys: number;
  readUnits: number;
  writeUnits: number;
  kinds: Set<string>;
}

/** The load each step puts on the hottest key of its family, a second. */
function stepLoad(step: ResolvedStep, kind: RequestKind, profile: LoadProfile) {
  const rate = kind.rate(profile);
  const spread = Math.max(
    1,
    step.varying.reduce((product, name) => product * argumentSpread(name, profile, rate), step.shards * rateShardsOf(step, profile)),
  );
  // A key no argument of a workspace shows in (the sweeper's lists) takes every workspace's load.
  const workspaces = step.varying.length > 0 ? 1 : profile.workspaces;
  const items = figure(step.items, profile);
  const per = step.per ?? 'unit';
  // A leased block serves this many calls: its one write is spread over them.
  const callsPerRun = step.perLines === undefined ? 1 : Math.max(1, step.perLines / Math.max(1, profile.linesPerCall));
  const perSecond =
    per === 'unit'
      ? (rate * items) / callsPerRun
      : per === 'second'
        ? rate > 0
          ? items
          : 0
        : rate > 0
          ? (items * profile.instances) / 60
          : 0;
  const cacheBound = step.cachedSeconds === undefined ? Infinity : (items * profile.instances) / step.cachedSeconds;
  const onKey = (Math.min(perSecond, cacheBound) * workspaces) / spread;
  return {
    spread,
    readUnits: onKey * figure(step.readUnits, profile),
    writeUnits: onKey * figure(step.writeUnits, profile),
  };
}

/** The /api/v1 requests a second of the profile: what a seller's rate limit is raised to, when the profile sets none. */
export function apiRequestsPerSecond(profile: LoadProfile): number {
  return profile.priceCallsPerSecond + profile.claimsPerSecond + profile.approvalsPerSecond + profile.ingestRecordsPerSecond / 1000;
}

/** How many shards a rate window spreads over at the profile's limit: one per `perRate` requests a second, at most `max`. */
function rateShardsOf(step: ResolvedStep, profile: LoadProfile): number {
  if (!step.rateShards) return 1;
  const limit = profile.rateLimit > 0 ? profile.rateLimit : apiRequestsPerSecond(profile);
  return Math.min(step.rateShards.max, Math.max(1, Math.ceil(limit / step.rateShards.perRate)));
}

function shareOf(units: { readUnits: number; writeUnits: number }): number {
  return Math.max(units.readUnits / PARTITION_LIMITS.readUnits, units.writeUnits / PARTITION_LIMITS.writeUnits);
}

/** Every key family's hottest key under the profile, hottest first. */
export function heatOf(profile: LoadProfile, kinds: readonly RequestKind[], catalogue?: readonly AccessPattern[]): KeyHeat[] {
  const families = new Map<string, Accumulated>();
  for (const kind of kinds) {
    for (const step of kind.steps.map((candidate) => resolveStep(candidate, catalogue))) {
      const load = stepLoad(step, kind, profile);
      const sum = families.get(step.family) ?? { keys: load.spread, readUnits: 0, writeUnits: 0, kinds: new Set<string>() };
      families.set(step.family, sum);
      sum.keys = Math.min(sum.keys, load.spread);
      sum.readUnits += load.readUnits;
      sum.writeUnits += load.writeUnits;
      if (load.readUnits + load.writeUnits > 0) sum.kinds.add(kind.id);
    }
  }
  return [...families]
    .map(([family, sum]) => ({
      family,
      keys: sum.keys,
      readUnits: sum.readUnits,
      writeUnits: sum.writeUnits,
      share: shareOf(sum),
      kinds: [...sum.kinds],
    }))
    .sort((a, b) => b.share - a.share);
}

export interface Ceiling {
  /** The factor on every rate of the profile at which the first key reaches its limit. */
  readonly factor: number;
  readonly family: string;
  readonly priceCallsPerSecond: number;
  readonly ingestRecordsPerSecond: number;
}

/**
 * The real ceiling per workspace: scale every rate of the profile together (and the instances serving it) until the
 * first key reaches 100%. A key's share is linear in the factor piece by piece (a per-instance cache bounds its reads
 * once enough calls share an instance), so a few rounds settle it.
 */
export function ceilingOf(profile: LoadProfile, kinds: readonly RequestKind[], catalogue?: readonly AccessPattern[]): Ceiling {
  let factor = 1;
  let family = '';
  for (let round = 0; round < 8; round++) {
    const scaled = scaleProfile(profile, factor);
    const hottest = heatOf(scaled, kinds, catalogue)[0];
    if (!hottest || hottest.share === 0)
      return { factor: Infinity, family: '', priceCallsPerSecond: Infinity, ingestRecordsPerSecond: Infinity };
    family = hottest.family;
    const next = factor / hottest.share;
    if (Math.abs(next - factor) / factor < 1e-6) break;
    factor = next;
  }
  return {
    factor,
    family,
    priceCallsPerSecond: profile.priceCallsPerSecond * factor,
    ingestRecordsPerSecond: profile.ingestRecordsPerSecond * factor,
  };
}
