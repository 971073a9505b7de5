// The admin CLI's `key` commands: issue, list, find and revoke API keys, and list in the console the keys issued before it.
import { ApiError } from '#platform/errors.ts';
import { type ApiKeyRecord, keyFamilies, OPERATOR, scopes } from '#shared/api-keys/schema.ts';
import { type AdminArguments, type AdminCommand, existingWorkspace, UsageError } from '#lib/admin/command.ts';
import { firstLineOfStdin } from './user.ts';

/** What an operator reads of a key: never its hash, and "—" for what a key made before names were kept lacks. */
function keyLine(key: ApiKeyRecord): string {
  const state = key.revokedAt ? `revoked ${key.revokedAt}` : key.revokeAt ? `revoked from ${key.revokeAt}` : 'active';
  return [
    key.keyId,
    key.name ?? '—',
    key.lastFour ? `${key.family}_…${key.lastFour}` : key.family,
    key.scopes.join(',') || '—',
    `workspace ${key.workspaceId}`,
    `created ${key.createdAt}`,
    `last used ${key.lastUsedAt ?? '—'}`,
    state,
  ].join('  ');
}

function keyJson(key: ApiKeyRecord) {
  return {
    keyId: key.keyId,
    workspaceId: key.workspaceId,
    name: key.name ?? null,
    lastFour: key.lastFour ?? null,
    family: key.family,
    scopes: key.scopes,
    connectorId: key.connectorId ?? null,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt ?? null,
    revokedAt: key.revokedAt ?? null,
    revokeAt: key.revokeAt ?? null,
  };
}

type Finding = { by: 'id'; id: string } | { by: 'lastFour'; lastFour: string; workspaceId?: string } | { by: 'plaintext' };

/** Exactly one way of finding a key; `--workspace` narrows a search by last four only. */
function findingOf(args: AdminArguments): Finding {
  const { id, 'last-four': lastFour, 'key-stdin': keyStdin, workspace } = args.values;
  const given = [id, lastFour, keyStdin].filter((value) => value !== undefined && value !== false);
  if (given.length !== 1) throw new UsageError('key find needs exactly one of --id K, --last-four XXXX or --key-stdin');
  if (workspace !== undefined && lastFour === undefined) throw new UsageError('--workspace narrows --last-four only');
  if (id !== undefined) return { by: 'id', id };
  if (lastFour !== undefined) {
    if (!/^[0-9A-Za-z]{4}$/.test(lastFour)) throw new UsageError(`invalid --last-four ${JSON.stringify(lastFour)}: four letters or digits`);
    return { by: 'lastFour', lastFour, workspaceId: workspace };
  }
  return { by: 'plaintext' };
}

async function findKeys(finding: Finding): Promise<ApiKeyRecord[]> {
  const lookup = await import('#shared/api-keys/lookup.ts');
  if (finding.by === 'id') return [await lookup.findApiKeyById(finding.id)].filter((key) => key !== undefined);
  if (finding.by === 'lastFour') return lookup.findApiKeysByLastFour(finding.lastFour, finding.workspaceId);
  const plaintext = await firstLineOfStdin();
  if (!plaintext) throw new UsageError('--key-stdin read no key on stdin');
  return [await lookup.findApiKeyByPlaintext(plaintext)].filter((key) => key !== undefined);
}

/** The name of a key created without one: what it is and when, which a person finds again in a list of keys. */
export function defaultKeyName(family: string, now: Date): string {
  return `${family} key, ${now.toISOString().slice(0, 10)}`;
}

export const keyCommands: readonly AdminCommand[] = [
  {
    name: 'key create',
    usage: `  key create --workspace W [--name N] --family svc_live --scopes erp[,storefront][,connector] [--connector C]
  key create --workspace W [--name N] --family pw_live|pw_test
                                        without --name, the key is named for its family and day: "pw_live key, 2026-12-07"`,
    options: ['workspace', 'name', 'family', 'scopes', 'connector'],
    async prepare(args) {
      const workspaceId = args.required('workspace');
      const family = args.oneOf('family', keyFamilies, args.required('family'));
      const grant = {
        workspaceId,
        // Optional, as every release before names were kept took it: scripts that provision keys without one still work.
        name: args.values.name ?? defaultKeyName(family, new Date()),
        family,
        scopes: args.eachOneOf('scopes', scopes) ?? [],
        connectorId: args.values.connector,
        createdBy: OPERATOR,
      };
      // The grant's own rules (scopes by family, a connector exactly for connector keys) are arguments too.
      const { checkGrant } = await import('#shared/api-keys/repository.ts');
      try {
        checkGrant(grant);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_request') throw new UsageError(error.message);
        throw error;
      }
      return async () => {
        const { issueApiKey } = await import('#shared/api-keys/repository.ts');
        const issued = await issueApiKey(grant);
        return {
          json: { keyId: issued.keyId, key: issued.key },
          text: `Created key ${issued.keyId} (${issued.record.name ?? ''}). It is shown this once; store it now:\n${issued.key}`,
        };
      };
    },
  },
  {
    name: 'key list',
    usage: `  key list --workspace W                a workspace's keys, newest first: id, name, last four, scopes, created,
                                        last used (to within 5 minutes) and whether revoked`,
    options: ['workspace'],
    prepare(args) {
      const workspaceId = args.required('workspace');
      return async () => {
        await existingWorkspace(workspaceId);
        const { listApiKeys } = await import('#shared/api-keys/repository.ts');
        const keys = await listApiKeys(workspaceId);
        return { json: keys.map(keyJson), text: keys.length === 0 ? 'No keys' : keys.map(keyLine).join('\n') };
      };
    },
  },
  {
    name: 'key find',
    usage: `  key find --id K | --last-four XXXX [--workspace W] | --key-stdin
                                        a key by its id, by its last four characters (every workspace's keys
                                        unless --workspace), or by the key itself read from stdin (hashed, never
                                        stored); exit 1 when none is found`,
    options: ['id', 'last-four', 'workspace', 'key-stdin'],
    prepare(args) {
      const finding = findingOf(args);
      return async () => {
        const keys = await findKeys(finding);
        if (keys.length === 0) throw new Error('no key found');
        return { json: keys.map(keyJson), text: keys.map(keyLine).join('\n') };
      };
    },
  },
  {
    name: 'key revoke',
    usage: '  key revoke K',
    target: 'the key id',
    options: [],
    prepare({ target }) {
      return async () => {
        const { revokeApiKey } = await import('#shared/api-keys/repository.ts');
        const revoked = await revokeApiKey(target);
        return { json: revoked, text: `Revoked key ${revoked.keyId} at ${revoked.revokedAt}` };
      };
    },
  },
  {
    name: 'key backfill-listings',
    usage: `  key backfill-listings                 lists the keys issued before the console in its Settings → API keys: one
                                        Scan of the table; run once after upgrading, again it writes nothing`,
    options: [],
    prepare() {
      return async () => {
        const { backfillApiKeyListings } = await import('#shared/api-keys/repository.ts');
        const done = await backfillApiKeyListings();
        return { json: done, text: `Listed ${done.written} of ${done.keys} keys that the console did not list yet` };
      };
    },
  },
];
