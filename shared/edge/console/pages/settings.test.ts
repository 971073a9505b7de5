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

  it('shows a new key the redirect left for it, in the element the tests and people copy it from, and no key without one', () => {
    const reveal = { kind: 'new-key', heading: 'New key (key_new)', advice: 'Copy it now.', secret: 'svc_live_secret' } as const;
    const { body } = apiKeysView({ ctx: { ...contextOf(['admin']), reveal }, keys, connectors: [] });
    expect(body.text).toContain('<p class="secret" data-testid="new-key">svc_live_secret</p>');
    expect(apiKeysView({ ctx: contextOf(['admin']), keys, connectors: [] }).body.text).not.toContain('class="secret"');
  });
});

describe('the API keys page’s names, last fours and last uses', () => {
  const named = key({
    keyId: 'key_named',
    name: 'ERP price sync',
    lastFour: 'a9Zq',
    lastUsedAt: '2026-03-01T11:42:10.000Z',
  });

  it('lists each key by name, its last four with its family, scopes, created and last used', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys: [named], connectors: [] });
    const row = body.text.slice(body.text.indexOf('data-key-id="key_named"'));
    expect(row).toContain('ERP price sync');
    expect(row).toContain('svc_live_…a9Zq');
    expect(row).toContain('<td data-label="Scopes">erp</td>');
    expect(row).toContain('<time datetime="2026-02-01T00:00:00.000Z">2026-02-01 00:00:00</time>');
    expect(row).toContain('<time datetime="2026-03-01T11:42:10.000Z">11:42:10</time>');
    expect(body.text).toContain('aria-label="Revoke “ERP price sync”"');
  });

  it('shows "—" for what a key made before names and last uses were kept lacks, and still names it by id', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys: [key({})], connectors: [] });
    const row = body.text.slice(
      body.text.indexOf('data-key-id="key_active"'),
      body.text.indexOf('</tr>', body.text.indexOf('data-key-id')),
    );
    expect(row).toContain('<span class="muted">—</span>');
    expect(row).toContain('<td data-label="Key"><code>—</code></td>');
    expect(row).toContain('<td data-label="Last used (UTC)">—</td>');
    expect(row).toContain('aria-label="Revoke key_active"');
  });

  it('names the key being revoked by its name, with its last four and last use', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys: [named], connectors: [], revoking: named });
    const section = body.text.slice(body.text.indexOf('<section class="confirm-revoke"'), body.text.indexOf('</section>') + 10);
    expect(section).toContain('Revoke “ERP price sync”?');
    expect(section).toContain('svc_live_…a9Zq');
    expect(section).toContain('last used 2026-03-01 11:42 UTC');
    expect(section).toContain('Yes, revoke “ERP price sync”</button>');
  });

  it('asks for a name when creating, and puts a refused name beside its field, tied to it and focused', () => {
    const fresh = apiKeysView({ ctx: contextOf(['admin']), keys: [], connectors: [] }).body.text;
    expect(fresh).toMatch(/<label for="key-name">Name<\/label>\s*<input\s+id="key-name"\s+name="name"/);
    const { body } = apiKeysView({
      ctx: contextOf(['admin']),
      keys: [],
      connectors: [],
      attempt: { name: 'bad\u0007', errors: { name: 'The name has control or invisible formatting characters.' } },
    });
    expect(body.text).toContain('aria-describedby="key-name-error key-name-hint"');
    expect(body.text).toContain('aria-invalid="true" autofocus');
    expect(body.text).toContain('<p class="error field-error" role="alert" id="key-name-error">The name has control');
    // The name typed is kept, escaped as any text.
    expect(body.text).toContain('value="bad\u0007"');
  });

  it('lays the keys out as cards on a phone: the table is marked for it and each value carries its column’s name', () => {
    const { body } = apiKeysView({ ctx: contextOf(['admin']), keys: [named], connectors: [] });
    expect(body.text).toContain('<table class="keys cards">');
    expect(body.text).toContain('role="region" aria-label="API keys of the workspace"');
    for (const label of ['Key', 'Scopes', 'Created (UTC)', 'Last used (UTC)', 'Status', 'Actions'])
      expect(body.text).toContain(`data-label="${label}"`);
  });
});

describe('the users page', () => {
  const user = (email: string) => ({
    userId: `usr_${email.length}`,
    email,
    workspaceId: 'ws_1',
    roles: ['finance' as const],
    createdAt: '2026-01-01T00:00:00.000Z',
    status: 'active' as const,
    mustChangePassword: false,
    version: 0,
  });
  const leaving = user('bob@example.com');

  it('leads each other user’s Delete button to a step, never straight to the deletion', () => {
    const text = usersView({ ctx: contextOf(['admin']), users: [leaving] }).body.text;
    expect(text).toContain('aria-label="Delete bob@example.com"');
    expect(text).not.toContain('name="confirmed"');
  });

  it('asks to confirm a deletion, naming the user and the keys they made that still work, with Delete user and Cancel', () => {
    const made = key({ keyId: 'key_made', name: 'Nightly export', lastFour: 'a9Zq' });
    const text = usersView({ ctx: contextOf(['admin']), users: [leaving], deleting: { user: leaving, keys: [made] } }).body.text;
    const section = text.slice(text.indexOf('<section class="confirm-revoke"'), text.indexOf('</section>') + 10);
    expect(section).toContain('Delete this user?');
    expect(section).toContain('<strong>bob@example.com</strong> (finance) will no longer sign in');
    expect(section).toContain('1 key they made still works');
    expect(section).toContain('“Nightly export” svc_live_…a9Zq (key_made)');
    expect(section).toContain('name="confirmed" value="yes"');
    expect(section).toContain('name="_csrf" value="token-of-the-session"');
    expect(section).toContain('name="revokeKeys" value="yes"');
    expect(section).toContain('>Delete user</button>');
    expect(section).toContain('<a href="/console/settings/users">Cancel</a>');
    const keyless = usersView({ ctx: contextOf(['admin']), users: [leaving], deleting: { user: leaving, keys: [] } }).body.text;
    expect(keyless).toContain('They made no key that still works.');
    expect(keyless).not.toContain('name="revokeKeys"');
  });

  it('shows a new user’s one-time password only when the redirect left it for the page', () => {
    const reveal = { kind: 'new-password', heading: 'New user bob@example.com', advice: 'Hand it on.', secret: 'Xy7' } as const;
    expect(usersView({ ctx: { ...contextOf(['admin']), reveal }, users: [leaving] }).body.text).toContain(
      '<p class="secret" data-testid="new-password">Xy7</p>',
    );
    expect(usersView({ ctx: contextOf(['admin']), users: [leaving] }).body.text).not.toContain('data-testid="new-password"');
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
