import { describe, expect, it } from 'vitest';
import { accessPatterns } from '#platform/table/access-patterns.ts';
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

const RATE = "Count a request against the workspace's per-second rate, and read the month's priced lines";

describe('the heat model', () => {
  it('puts a pattern on the partition key its catalogue entry names, as the key builder makes it', () => {
    expect(resolveStep({ pattern: RATE, key: 'usage', items: 1, writeUnits: 1 }).family).toBe('WS#<workspaceId>#USAGE#<month>');
    expect(
      resolveStep({
        pattern: "Listing index: keep a recommendation's rows, a batch and a write-back task in their lists",
        key: 'listingKeys.recommendationRow',
        args: { ordering: 'sku', category: undefined },
        items: 1,
      }).family,
    ).toBe('listing:WS#<workspaceId>#RECROWS#sku');
  });

  it('refuses a step whose pattern the catalogue no longer has, or whose key the pattern no longer names', () => {
    expect(() => resolveStep({ pattern: 'No such pattern', key: 'usage', items: 1 })).toThrow(/no pattern "No such pattern"/);
    expect(() => resolveStep({ pattern: RATE, key: 'workspaceBands', items: 1 })).toThrow(/no longer names workspaceBands/);
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
    const counters = [RATE, 'Price call: charge its lines to the monthly quota'];
    const both = accessPatterns.map((pattern) =>
      counters.includes(pattern.name) ? { ...pattern, key: `${pattern.key}, over 8 shards` } : pattern,
    );
    const usage = (catalogue = accessPatterns) =>
      heatOf(tenThousandProfile, [priceCall], catalogue).find((key) => key.family === 'WS#<workspaceId>#USAGE#<month>');
    const before = usage();
    const after = usage(both);
    expect(after?.keys).toBe(8);
    expect(after?.writeUnits).toBeCloseTo((before?.writeUnits ?? 0) / 8, 6);
  });

  it('bounds the reads of an item the catalogue says is cached per instance by the instances, not the calls', () => {
    const cached = accessPatterns.map((pattern) =>
      pattern.name === 'Price call, round one: products, customers and the workspace band'
        ? { ...pattern, cost: `${pattern.cost}; the workspace band cached per instance for 5 s` }
        : pattern,
    );
    const onlyBand: RequestKind = { ...priceCall, steps: priceCall.steps.filter((step) => step.key === 'workspaceBands') };
    const profile = { ...tenThousandProfile, instances: 500 };
    const uncached = heatOf(profile, [onlyBand])[0];
    const bounded = heatOf(profile, [onlyBand], cached)[0];
    expect(uncached?.readUnits).toBe(10_000 * 0.5);
    expect(bounded?.readUnits).toBe((500 / 5) * 0.5);
  });

  it("models a price call's units per key from its lines, categories and customer", () => {
    const units = unitsPerRequest(priceCall, { ...defaultProfile, linesPerCall: 100, categoriesPerCall: 8, customerShare: 1 });
    expect(units.get('WS#<workspaceId>#PRODUCT#<sku>')).toEqual({ items: 100, readUnits: 50, writeUnits: 0 });
    expect(units.get('WS#<workspaceId>#BANDS')).toEqual({ items: 9, readUnits: 4.5, writeUnits: 0 });
    expect(units.get('WS#<workspaceId>#CUSTOMER#<customer>')?.readUnits).toBe(4.5);
    expect(units.get('WS#<workspaceId>#USAGE#<month>')).toEqual({ items: 2, readUnits: 0, writeUnits: 2 });
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
    const usage = (heat: typeof few) => heat.find((key) => key.family === 'WS#<workspaceId>#USAGE#<month>')?.writeUnits;
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
