// Unit tests of the settings pages' views: admins see the forms, other roles only the lists, and what a person typed is escaped.
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '#shared/api-keys/schema.ts';
import type { ConsoleContext, ConsoleRole } from '#edge/console/page.ts';
import { apiKeysView } from './api-keys.ts';
import { connectorsView } from './connectors.ts';
import { usersView } from './users.ts';

const nowMs = Date.parse('2026-03-01T12:00:00.000Z');
function contextOf(roles: readonly ConsoleRole[]): ConsoleContext {
  return {
    user: { userId: 'usr_1', email: 'ann@example.com', workspaceId: 'ws_1', roles },
    params: {},
    query: new URLSearchParams(),
    csrfToken: 'token-of-the-session',
    nowMs,
  };
}
const key = (changes: Partial<ApiKeyRecord>): ApiKeyRecord => ({
  keyId: 'key_active',
  workspaceId: 'ws_1',
  family: 'svc_live',
  scopes: ['erp'],
  createdAt: '2026-02-01T00:00:00.000Z',
  ...changes,
});
const keys = [
  key({}),
  key({ keyId: 'key_grace', revokeAt: '2026-03-02T12:00:00.000Z' }),
  key({ keyId: 'key_gone', revokedAt: '2026-02-15T00:00:00.000Z' }),
  key({ keyId: 'key_lapsed', revokeAt: '2026-03-01T11:00:00.000Z' }),
];

describe('the API keys page', () => {
  it('gives an admin the create form and rotate and revoke for each live key, each form with the session’s token', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys, connectors: [] });
    expect(body.text).toContain('Create key</button>');
    expect(body.text.match(/>Rotate<\/button>/g)).toHaveLength(2);
    expect(body.text.match(/>Revoke<\/button>/g)).toHaveLength(2);
    expect(body.text.match(/name="_csrf" value="token-of-the-session"/g)).toHaveLength(5);
    expect(body.text).toContain('active until 2026-03-02 12:00 UTC');
    expect(body.text).toContain('revoked 2026-03-01 11:00 UTC');
  });

  it('shows the other roles the keys and no form', () => {
    const { body } = apiKeysView({ ctx: contextOf(['pricing', 'finance']), keys, connectors: [] });
    expect(body.text).toContain('key_active');
    expect(body.text).not.toContain('<form');
  });

  it('asks to confirm a revoke, naming the key, with one form that carries the token and the confirmation', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys, connectors: [], revoking: keys[0] });
    const section = body.text.slice(body.text.indexOf('<section class="confirm-revoke"'), body.text.indexOf('</section>') + 10);
    expect(section).toContain(`Revoke ${keys[0]?.keyId}?`);
    expect(section).toContain('name="confirmed" value="yes"');
    expect(section).toContain('name="_csrf" value="token-of-the-session"');
    expect(section).toContain(`Yes, revoke ${keys[0]?.keyId}</button>`);
    // Without it, the row's button only leads to this step.
    expect(apiKeysView({ ctx: contextOf(['admin']), keys, connectors: [] }).body.text).not.toContain('name="confirmed"');
  });

  it('shows a new key once, in the element the tests and people copy it from', () => {
    const { body } = apiKeysView({
      ctx: contextOf(['admin']),
      keys,
      connectors: [],
      created: { keyId: 'key_new', key: 'svc_live_secret' },
    });
    expect(body.text).toContain('<p class="secret" data-testid="new-key">svc_live_secret</p>');
  });
});

describe('the other settings pages', () => {
  it('escape what people typed: a connector’s name, a user’s email', () => {
    const connector = {
      connectorId: 'con_1',
      workspaceId: 'ws_1',
      name: '<script>x</script>',
      receivesWritebacks: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    };
    expect(connectorsView(contextOf(['admin']), [connector]).body.text).toContain('&lt;script&gt;x&lt;/script&gt;');
    const user = {
      userId: 'usr_2',
      email: '"bob"@example.com',
      workspaceId: 'ws_1',
      roles: ['finance' as const],
      createdAt: '2026-01-01T00:00:00.000Z',
      status: 'active' as const,
      mustChangePassword: false,
      version: 0,
    };
    const page = usersView({ ctx: contextOf(['finance']), users: [user] }).body.text;
    expect(page).toContain('&quot;bob&quot;@example.com');
    expect(page).not.toContain('Create user</button>');
  });
});
