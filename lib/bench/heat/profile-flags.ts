// The load profile of `npm run bench -- scale`, from its flags (`--price-calls 10000 --lines 100 ...`) over the default profile.
import type { LoadProfile } from './model.ts';

/** Each flag and the profile field it sets. */
export const profileFlags: Readonly<Record<string, keyof LoadProfile>> = {
  'price-calls': 'priceCallsPerSecond',
  lines: 'linesPerCall',
  'customer-share': 'customerShare',
  'categories-per-call': 'categoriesPerCall',
  'ingest-records': 'ingestRecordsPerSecond',
  claims: 'claimsPerSecond',
  approvals: 'approvalsPerSecond',
  'webhook-deliveries': 'webhookDeliveriesPerSecond',
  workspaces: 'workspaces',
  products: 'products',
  customers: 'customers',
  categories: 'categories',
  connectors: 'connectors',
  'webhook-endpoints': 'webhookEndpoints',
  instances: 'instances',
  'rate-limit': 'rateLimit',
};

/** The profile the flags describe; an unknown flag or a value that is not a number at or above zero is refused. */
export function profileFromFlags(args: readonly string[], base: LoadProfile): LoadProfile {
  const profile: Record<string, number> = { ...base };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const [flag, inline] = arg.replace(/^--/, '').split('=', 2) as [string, string | undefined];
    const field = arg.startsWith('--') ? profileFlags[flag] : undefined;
    if (!field)
      throw new Error(
        `unknown flag ${arg}: one of ${Object.keys(profileFlags)
          .map((name) => `--${name}`)
          .join(', ')}`,
      );
    const text = inline ?? args[++index];
    const value = Number(text);
    if (text === undefined || text.trim() === '' || !Number.isFinite(value) || value < 0)
      throw new Error(`--${flag} takes a number at or above zero, not ${text}`);
    if (field === 'customerShare' && value > 1) throw new Error(`--${flag} is a share, from 0 to 1, not ${text}`);
    profile[field] = value;
  }
  return profile as unknown as LoadProfile;
}
