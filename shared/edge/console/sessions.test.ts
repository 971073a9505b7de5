// Unit tests of console sessions: their expiry, the CSRF token check, the cookie's attributes, and the secret a redirect leaves sealed for one view.
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Commands from '#platform/table/commands.ts';
import type { Reveal } from './page.ts';
import {
  cookie,
  csrfTokenMatches,
  hashSessionId,
  isHttps,
  isLive,
  leaveForNextView,
  openReveal,
  readCookies,
  sealReveal,
  SESSION_TTL_MS,
  takeReveal,
} from './sessions.ts';

/** The one session item the tests write, as DynamoDB would keep it under the conditions the module sets. */
const session = vi.hoisted(() => ({ item: {} as Record<string, unknown>, writes: [] as string[] }));

vi.mock('#platform/table/commands.ts', async (original) => ({
  ...(await original<typeof Commands>()),
  updateItem: async (input: UpdateCommandInput) => {
    const values = input.ExpressionAttributeValues ?? {};
    session.writes.push(input.UpdateExpression ?? '');
    if (input.ConditionExpression === 'reveal = :sealed') {
      if (session.item.reveal !== values[':sealed']) return { refused: true, error: new Error('ConditionalCheckFailed') };
      delete session.item.reveal;
      return { refused: false };
    }
    if (values[':notice'] !== undefined) session.item.flash = values[':notice'];
    if (values[':reveal'] !== undefined) session.item.reveal = values[':reveal'];
    return { refused: false };
  },
}));

describe('console sessions', () => {
  it('live until their expiry and not a millisecond after', () => {
    const opened = Date.UTC(2026, 0, 1);
    const expiresAt = opened + SESSION_TTL_MS;
    expect(isLive(expiresAt, opened)).toBe(true);
    expect(isLive(expiresAt, expiresAt - 1)).toBe(true);
    expect(isLive(expiresAt, expiresAt)).toBe(false);
    expect(isLive(expiresAt, expiresAt + 60_000)).toBe(false);
  });

  it('are stored by a hash of their id, never the id', () => {
    const id = 'A'.repeat(43);
    expect(hashSessionId(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionId(id)).not.toContain(id);
  });

  it('accept a form only with the session’s own CSRF token', () => {
    const token = 'k2v8Yx3Jr0tq5N1m4Pz7Qw9Ee6Rt2Yu8Ii0Oo1Pp3A';
    expect(csrfTokenMatches(token, token)).toBe(true);
    expect(csrfTokenMatches(token, undefined)).toBe(false);
    expect(csrfTokenMatches(token, '')).toBe(false);
    expect(csrfTokenMatches(token, `${token.slice(0, -1)}B`)).toBe(false);
    expect(csrfTokenMatches(token, token.slice(1))).toBe(false);
  });

  it('set a cookie that scripts cannot read, other sites never send, under /console only, Secure over HTTPS', () => {
    const plain = cookie('console_session', 'abc', { secure: false, maxAgeSeconds: 60 });
    expect(plain).toBe('console_session=abc; Path=/console; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(cookie('console_session', 'abc', { secure: true, maxAgeSeconds: 60 })).toMatch(/; Secure$/);
  });

  it('take HTTPS from API Gateway’s X-Forwarded-Proto', () => {
    expect(isHttps({ 'x-forwarded-proto': 'https' })).toBe(true);
    expect(isHttps({ 'x-forwarded-proto': 'http' })).toBe(false);
    expect(isHttps({})).toBe(false);
  });

  it('read cookies as API Gateway hands them on, the first of a name winning', () => {
    const cookies = readCookies(['console_session=one', 'other=x=y', 'console_session=two', 'broken']);
    expect(cookies.get('console_session')).toBe('one');
    expect(cookies.get('other')).toBe('x=y');
    expect(readCookies(undefined, 'a=1; b=2').get('b')).toBe('2');
  });
});

describe('a secret a redirect leaves for its page', () => {
  const sessionId = 'k2v8Yx3Jr0tq5N1m4Pz7Qw9Ee6Rt2Yu8Ii0Oo1Pp3AB';
  const otherSessionId = 'Z2v8Yx3Jr0tq5N1m4Pz7Qw9Ee6Rt2Yu8Ii0Oo1Pp3AB';
  const path = '/console/settings/api-keys';
  const reveal: Reveal = { kind: 'new-key', heading: 'New key (key_1)', advice: 'Copy it now.', secret: 'pw_live_TheSecretItself' };

  beforeEach(() => {
    session.item = {};
    session.writes = [];
  });

  it('is sealed: neither the secret nor the cookie’s id is in what the table keeps', () => {
    const sealed = sealReveal(sessionId, path, reveal);
    expect(sealed).toMatch(/^r1\./);
    expect(sealed).not.toContain('TheSecretItself');
    expect(sealed).not.toContain(sessionId);
    expect(sealReveal(sessionId, path, reveal)).not.toBe(sealed);
    expect(openReveal(sessionId, sealed)).toEqual({ path, reveal });
  });

  it('opens only with the session’s own cookie id: not with another session’s, nor the table’s hash of it, nor altered', () => {
    const sealed = sealReveal(sessionId, path, reveal);
    expect(openReveal(otherSessionId, sealed)).toBeUndefined();
    expect(openReveal(hashSessionId(sessionId), sealed)).toBeUndefined();
    const [version, iv, tag, ciphertext = ''] = sealed.split('.');
    const flipped = `${ciphertext.slice(0, -2)}${ciphertext.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(openReveal(sessionId, [version, iv, tag, flipped].join('.'))).toBeUndefined();
    expect(openReveal(sessionId, [version, iv, (tag ?? '').slice(0, 8), ciphertext].join('.'))).toBeUndefined();
    expect(openReveal(sessionId, 'r1.not-sealed')).toBeUndefined();
  });

  it('is shown by one view of its page and taken off the session by it: the next view, a reload, shows nothing', async () => {
    await leaveForNextView('hash', { notice: 'Done.', reveal: sealReveal(sessionId, path, reveal) });
    expect(session.item).toEqual({ flash: 'Done.', reveal: expect.any(String) });
    const sealed = session.item.reveal as string;
    expect(await takeReveal(sessionId, sealed, path)).toEqual(reveal);
    expect(session.item.reveal).toBeUndefined();
    // The reload read the session before the first view took it off: its conditional removal fails, and it shows nothing.
    expect(await takeReveal(sessionId, sealed, path)).toBeUndefined();
  });

  it('waits for its own page: a view of another page neither shows it nor takes it off', async () => {
    await leaveForNextView('hash', { reveal: sealReveal(sessionId, path, reveal) });
    const sealed = session.item.reveal as string;
    expect(await takeReveal(sessionId, sealed, '/console/settings/users')).toBeUndefined();
    expect(session.item.reveal).toBe(sealed);
    expect(session.writes).toHaveLength(1);
    expect(await takeReveal(sessionId, sealed, path)).toEqual(reveal);
  });

  it('is taken off unread where it does not open under the cookie’s id', async () => {
    await leaveForNextView('hash', { reveal: sealReveal(otherSessionId, path, reveal) });
    expect(await takeReveal(sessionId, session.item.reveal as string, path)).toBeUndefined();
    expect(session.item.reveal).toBeUndefined();
  });

  it('leaves nothing, and writes nothing, for a redirect with neither a notice nor a secret', async () => {
    await leaveForNextView('hash', {});
    expect(session.writes).toEqual([]);
  });
});
