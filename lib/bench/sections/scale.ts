// The bench section of the table's heat: units a second on each partition key under a load profile, the ten hottest against DynamoDB's per-partition limits, and the ceiling per workspace (no stack: the model, from the catalogue).
import { requestKinds } from '#lib/bench/heat/mix.ts';
import {
  type Ceiling,
  ceilingOf,
  defaultProfile,
  heatOf,
  type KeyHeat,
  type LoadProfile,
  PARTITION_LIMITS,
  tenThousandProfile,
} from '#lib/bench/heat/model.ts';
import { profileFromFlags } from '#lib/bench/heat/profile-flags.ts';
import { section, verdict } from '#lib/bench/section.ts';

interface ProfileHeat {
  readonly name: string;
  readonly profile: LoadProfile;
  readonly hottest: readonly KeyHeat[];
  readonly ceiling: Ceiling;
}

function heatOfProfile(name: string, profile: LoadProfile): ProfileHeat {
  return { name, profile, hottest: heatOf(profile, requestKinds).slice(0, 10), ceiling: ceilingOf(profile, requestKinds) };
}

function describe(profile: LoadProfile): string {
  return (
    `${profile.priceCallsPerSecond.toLocaleString('en-US')} price calls/s of ${profile.linesPerCall} lines (${profile.customerShare * 100}% with a customer, ` +
    `${profile.categoriesPerCall} categories each), ${profile.ingestRecordsPerSecond.toLocaleString('en-US')} ingest records/s, ${profile.claimsPerSecond} claims/s, ` +
    `${profile.approvalsPerSecond} approvals/s, ${profile.webhookDeliveriesPerSecond} webhook deliveries/s; ${profile.workspaces} workspaces, ` +
    `${profile.products.toLocaleString('en-US')} products, ${profile.customers.toLocaleString('en-US')} customers, ${profile.categories} categories, ${profile.instances} instances`
  );
}

function profileLines(heat: ProfileHeat, target: number): string[] {
  const { ceiling } = heat;
  return [
    `  ${heat.name}: ${describe(heat.profile)}`,
    `    ${'partition key (hottest of its family)'.padEnd(62)} ${'keys'.padStart(6)} ${'RRU/s'.padStart(9)} ${'WRU/s'.padStart(9)} ${'of limit'.padStart(9)}  from`,
    ...heat.hottest.map(
      (key) =>
        `    ${key.family.padEnd(62)} ${String(Math.round(key.keys)).padStart(6)} ${key.readUnits.toFixed(1).padStart(9)} ${key.writeUnits.toFixed(1).padStart(9)} ${`${(key.share * 100).toFixed(1)}%`.padStart(9)}  ${key.kinds.join(', ')}`,
    ),
    `    hottest ${((heat.hottest[0]?.share ?? 0) * 100).toFixed(1)}% of its limit   ${verdict((heat.hottest[0]?.share ?? 0) <= target)} (<= ${target * 100}%)`,
    `    ceiling per workspace: ${ceiling.priceCallsPerSecond.toFixed(0)} price calls/s with ${ceiling.ingestRecordsPerSecond.toFixed(0)} ingest records/s (every rate x${ceiling.factor.toFixed(3)}), where ${ceiling.family} reaches 100%`,
  ];
}

export const scaleSection = section({
  id: 'scale',
  where: 'own-process',
  heading: `\nThe table's heat per partition key (the model: the access-pattern catalogue and the per-request call mix; limits ${PARTITION_LIMITS.readUnits.toLocaleString('en-US')} RRU/s and ${PARTITION_LIMITS.writeUnits.toLocaleString('en-US')} WRU/s per partition key, index partitions too)`,
  targets: { hottestShare: 0.5 },
  // Flags after `scale` describe one more profile: `npm run bench -- scale --price-calls 2000 --ingest-records 1000`.
  measure: async ({ args }) => {
    const profiles = [heatOfProfile('default profile', defaultProfile), heatOfProfile('10,000-call profile', tenThousandProfile)];
    if (args.length > 0) profiles.push(heatOfProfile('profile of the flags', profileFromFlags(args, defaultProfile)));
    return profiles;
  },
  lines: (profiles, targets) => profiles.flatMap((heat) => profileLines(heat, targets.hottestShare)),
  record: (profiles) => ({
    scale: profiles.map((heat) => ({
      name: heat.name,
      profile: heat.profile,
      ceiling: heat.ceiling,
      hottest: heat.hottest.map((key) => ({ family: key.family, readUnits: key.readUnits, writeUnits: key.writeUnits, share: key.share })),
    })),
  }),
});
