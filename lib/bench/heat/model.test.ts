import { describe, expect, it } from 'vitest';
import { accessPatterns } from '#platform/table/access-patterns.ts';
import { CHUNK_SHARDS } from '#shared/batches/chunks.ts';
import { priceCall, requestKinds } from './mix.ts';
import {
  ceilingOf,
  defaultProfile,
  heatOf,
  type RequestKind,
  resolveStep,
  scaleProfile,
  tenThousandProfile,
  unitsPerRequest,
} from './model.ts';
import { profileFromFlags } from './profile-flags.ts';

const RATE = "Count a request against the workspace's per-second rate";
const QUOTA = 'Price call: take a block of lines from the monthly quota';
const BANDS = 'Price call: the workspace band and the category bands, kept per instance';

describe('the heat model', () => {
  it('puts a pattern on the partition key its catalogue entry names, as the key builder makes it', () => {
    expect(resolveStep({ pattern: QUOTA, key: 'usage', items: 1, writeUnits: 1 }).family).toBe('WS#<workspaceId>#USAGE#<month>');
    expect(resolveStep({ pattern: RATE, key: 'rateShard', args: { meter: 'api' }, items: 1, writeUnits: 1 }).family).toBe(
      'WS#<workspaceId>#USAGE#RATE#api#<shard>',
    );
    expect(
      resolveStep({
        pattern: "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists",
        key: 'listingKeys.recommendationRow',
        args: { ordering: 'sku', category: undefined },
        items: 1,
      }).family,
    ).toBe('listing:WS#<workspaceId>#RECROWS#sku#<shard>');
  });

  it("spreads each ordering of the console's list over the shards the SKU hashes to, in one category as over the workspace", () => {
    const LISTED = "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists";
    const bySku = resolveStep({
      pattern: LISTED,
      key: 'listingKeys.recommendationRow',
      args: { ordering: 'sku', category: undefined },
      items: 1,
    });
    expect(bySku.shards).toBe(8);
    const oneCategory = { ...tenThousandProfile, categories: 1 };
    const heat = heatOf(oneCategory, requestKinds).filter((key) => key.family.includes('#RECROWS#'));
    expect(heat.map((key) => key.family).sort()).toEqual(
      ['sku', 'change', 'impact', 'category-sku', 'category-change', 'category-impact']
        .map(
          (ordering) => `listing:WS#<workspaceId>#RECROWS#${ordering}#<shard>${ordering.startsWith('category-') ? '#CAT#<category>' : ''}`,
        )
        .sort(),
    );
    for (const key of heat) {
      expect(key.keys).toBe(8);
      expect(key.share).toBeLessThanOrEqual(0.5);
    }
  });

  it('refuses a step whose pattern the catalogue no longer has, or whose key the pattern no longer names', () => {
    expect(() => resolveStep({ pattern: 'No such pattern', key: 'usage', items: 1 })).toThrow(/no pattern "No such pattern"/);
    expect(() => resolveStep({ pattern: QUOTA, key: 'workspaceBands', items: 1 })).toThrow(/no longer names workspaceBands/);
  });

  it('spreads a key over the partitions its builder hashes an argument into', () => {
    const step = resolveStep({
      pattern: "Drain: log a chunk's quote and order lines per category (the pricing history)",
      key: 'historyLog',
      items: 1,
    });
    expect(step.shards).toBe(16);
    expect(step.varying).toEqual(['workspaceId', 'category']);
    expect(step.family).toMatch(/^WS#<workspaceId>#HLOG#/);
  });

  it('follows the catalogue: a pattern stated over N shards spreads its load over N keys, without a change to the model', () => {
    const both = accessPatterns.map((pattern) => (pattern.name === QUOTA ? { ...pattern, key: `${pattern.key}, over 8 shards` } : pattern));
    const usage = (catalogue = accessPatterns) =>
      heatOf(tenThousandProfile, [priceCall], catalogue).find((key) => key.family === 'WS#<workspaceId>#USAGE#<month>');
    const before = usage();
    const after = usage(both);
    expect(after?.keys).toBe(8);
    expect(after?.writeUnits).toBeCloseTo((before?.writeUnits ?? 0) / 8, 6);
  });

  it('sizes a rate window by the limit as the catalogue’s spread says: one shard per so many requests a second, at most so many', () => {
    const rate = (profile: typeof defaultProfile) =>
      heatOf(profile, [priceCall]).find((key) => key.family === 'WS#<workspaceId>#USAGE#RATE#api#<shard>');
    expect(rate({ ...defaultProfile, priceCallsPerSecond: 50 })?.keys).toBe(1);
    const storefront = rate({
      ...defaultProfile,
      priceCallsPerSecond: 10_000,
      claimsPerSecond: 0,
      approvalsPerSecond: 0,
      ingestRecordsPerSecond: 0,
    });
    expect(storefront?.keys).toBe(25);
    expect(storefront?.writeUnits).toBeCloseTo(10_000 / 25 + 1 / 25, 6);
    expect(rate({ ...defaultProfile, priceCallsPerSecond: 50, rateLimit: 100_000 })?.keys).toBe(32);
  });

  it('spreads a leased block’s write over the calls it serves, as the catalogue’s spread in lines says', () => {
    const onlyQuota: RequestKind = { ...priceCall, steps: priceCall.steps.filter((step) => step.pattern === QUOTA) };
    const usage = heatOf({ ...tenThousandProfile, linesPerCall: 100 }, [onlyQuota])[0];
    expect(usage?.family).toBe('WS#<workspaceId>#USAGE#<month>');
    expect(usage?.writeUnits).toBeCloseTo(10_000 / (5_000 / 100), 6);
  });

  it('bounds the reads of an item the catalogue says is cached per instance by the instances, not the calls', () => {
    // The same catalogue with the bands read every call: the spread the entry states, taken off.
    const uncachedCatalogue = accessPatterns.map((pattern) => {
      if (pattern.name !== BANDS) return pattern;
      const { spread: _cached, ...uncached } = pattern;
      return uncached;
    });
    const onlyBand: RequestKind = { ...priceCall, steps: priceCall.steps.filter((step) => step.key === 'workspaceBands') };
    const profile = { ...tenThousandProfile, instances: 500 };
    const uncached = heatOf(profile, [onlyBand], uncachedCatalogue)[0];
    const bounded = heatOf(profile, [onlyBand])[0];
    expect(uncached?.readUnits).toBe(10_000 * 0.5);
    expect(bounded?.readUnits).toBe((500 / 5) * 0.5);
  });

  it("models a price call's units per key from its lines, categories and customer", () => {
    const units = unitsPerRequest(priceCall, { ...defaultProfile, linesPerCall: 100, categoriesPerCall: 8, customerShare: 1 });
    expect(units.get('WS#<workspaceId>#PRODUCT#<sku>')).toEqual({ items: 100, readUnits: 50, writeUnits: 0 });
    // On a warm instance the bands come from its cache and the lines from its leased block.
    expect(units.get('WS#<workspaceId>#BANDS')).toBeUndefined();
    expect(units.get('WS#<workspaceId>#USAGE#<month>')).toBeUndefined();
    expect(units.get('WS#<workspaceId>#CUSTOMER#<customer>')?.readUnits).toBe(4.5);
    expect(units.get('WS#<workspaceId>#USAGE#RATE#api#<shard>')).toEqual({ items: 1, readUnits: 0, writeUnits: 1 });
  });

  it("spreads a batch's staged chunks over as many partitions as staging writes, and keeps each of the batch's keys under half its limit at the 10,000-call profile", () => {
    const heat = heatOf(tenThousandProfile, requestKinds);
    const batch = heat.find((key) => key.family === 'WS#<workspaceId>#BATCH#<batchId>');
    const chunks = heat.find((key) => key.family === 'WS#<workspaceId>#BATCH#<batchId>#C<shard>');
    expect(chunks?.keys).toBe(CHUNK_SHARDS);
    for (const key of [batch, chunks]) expect(key?.share).toBeLessThanOrEqual(0.5);
  });

  it('finds the ceiling per workspace where the hottest key reaches its limit', () => {
    const ceiling = ceilingOf(defaultProfile, requestKinds);
    const at = heatOf(scaleProfile(defaultProfile, ceiling.factor), requestKinds)[0];
    expect(at?.family).toBe(ceiling.family);
    expect(at?.share).toBeCloseTo(1, 6);
    expect(ceiling.priceCallsPerSecond).toBeCloseTo(defaultProfile.priceCallsPerSecond * ceiling.factor, 6);
  });

  it('adds up the load of keys every workspace shares (the outbox sweeper’s shards), and of no other', () => {
    const few = heatOf({ ...defaultProfile, workspaces: 1 }, requestKinds);
    const many = heatOf({ ...defaultProfile, workspaces: 10 }, requestKinds);
    const outbox = (heat: typeof few) => heat.find((key) => key.family.startsWith('lookup:WHOUTBOX#'))?.writeUnits ?? 0;
    const usage = (heat: typeof few) => heat.find((key) => key.family === 'WS#<workspaceId>#USAGE#RATE#api#<shard>')?.writeUnits;
    expect(outbox(many)).toBeCloseTo(outbox(few) * 10, 6);
    expect(usage(many)).toBe(usage(few));
  });
});

describe('the load profile flags', () => {
  it('set the profile fields they name over the default profile', () => {
    const profile = profileFromFlags(['--price-calls', '2000', '--lines=10', '--customer-share', '0.5'], defaultProfile);
    expect(profile).toMatchObject({ priceCallsPerSecond: 2000, linesPerCall: 10, customerShare: 0.5, ingestRecordsPerSecond: 100 });
  });

  it('refuse an unknown flag, a missing or negative number, and a share above one', () => {
    expect(() => profileFromFlags(['--calls', '5'], defaultProfile)).toThrow(/unknown flag --calls/);
    expect(() => profileFromFlags(['--lines'], defaultProfile)).toThrow(/--lines takes a number/);
    expect(() => profileFromFlags(['--lines', '-1'], defaultProfile)).toThrow(/--lines takes a number/);
    expect(() => profileFromFlags(['--customer-share', '2'], defaultProfile)).toThrow(/a share, from 0 to 1/);
  });
});
