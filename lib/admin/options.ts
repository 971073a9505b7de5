// The admin CLI's options: every one any command takes, parsed once for all; which command takes which is in its row.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

export const adminOptions = {
  json: { type: 'boolean' },
  aws: { type: 'boolean' },
  table: { type: 'string' },
  stack: { type: 'string' },
  help: { type: 'boolean' },
  name: { type: 'string' },
  'base-currency': { type: 'string' },
  status: { type: 'string' },
  features: { type: 'string' },
  'rate-limit': { type: 'string' },
  'overview-rate-limit': { type: 'string' },
  'monthly-lines': { type: 'string' },
  'batch-record-cap': { type: 'string' },
  'connector-limit': { type: 'string' },
  'batch-line-cap': { type: 'string' },
  pricing: { type: 'string' },
  workspace: { type: 'string' },
  'no-writebacks': { type: 'boolean' },
  family: { type: 'string' },
  scopes: { type: 'string' },
  connector: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  by: { type: 'string' },
  csv: { type: 'boolean' },
  'holdout-days': { type: 'string' },
  email: { type: 'string' },
  roles: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  // `user disable` and `user delete`: also revoke the keys the user made.
  'revoke-keys': { type: 'boolean' },
  // The webhook commands' own; `--workspace` and `--status` they share with the others.
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  enable: { type: 'boolean' },
  disable: { type: 'boolean' },
  event: { type: 'string' },
  limit: { type: 'string' },
  // `key find`'s own: one of a key id, a key's last four characters, or its plaintext on stdin.
  id: { type: 'string' },
  'last-four': { type: 'string' },
  'key-stdin': { type: 'boolean' },
  // `approval history`'s own: where the page starts, as the API's `starting_after`.
  'starting-after': { type: 'string' },
  // The operator's `batch` and `dlq` commands', and `webhook redeliver --parked`.
  batch: { type: 'string' },
  queue: { type: 'string' },
  'queue-url': { type: 'string' },
  message: { type: 'string' },
  all: { type: 'boolean' },
  yes: { type: 'boolean' },
  parked: { type: 'boolean' },
} as const satisfies ParseArgsOptionsConfig;

export function parseCommandLine(args: string[]) {
  // No defaults: an option left out stays undefined, so that one given to a command that does not take it shows.
  return parseArgs({ args, allowPositionals: true, strict: true, options: adminOptions });
}

export type AdminValues = ReturnType<typeof parseCommandLine>['values'];
export type AdminOption = keyof AdminValues;

/** Every command takes these: the output format and the target. */
export const globalOptions: readonly AdminOption[] = ['json', 'aws', 'table', 'stack', 'help'];
