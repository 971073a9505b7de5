// Unit tests of console sessions: their expiry, the CSRF token check, and the cookie's attributes.
import { describe, expect, it } from 'vitest';
import { cookie, csrfTokenMatches, hashSessionId, isHttps, isLive, readCookies, SESSION_TTL_MS } from './sessions.ts';

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
