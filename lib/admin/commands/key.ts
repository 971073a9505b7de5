// The admin CLI's `key` commands: issue and revoke API keys, and list in the console the keys issued before it.
import { ApiError } from '#platform/errors.ts';
import { keyFamilies, scopes } from '#shared/api-keys/schema.ts';
import { type AdminCommand, UsageError } from '#lib/admin/command.ts';

export const keyCommands: readonly AdminCommand[] = [
  {
    name: 'key create',
    usage: `  key create --workspace W --family svc_live --scopes erp[,storefront][,connector] [--connector C]
  key create --workspace W --family pw_live|pw_test`,
    options: ['workspace', 'family', 'scopes', 'connector'],
    async prepare(args) {
      const grant = {
        workspaceId: args.required('workspace'),
        family: args.oneOf('family', keyFamilies, args.required('family')),
        scopes: args.eachOneOf('scopes', scopes) ?? [],
        connectorId: args.values.connector,
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
          text: `Created key ${issued.keyId}. It is shown this once; store it now:\n${issued.key}`,
        };
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
