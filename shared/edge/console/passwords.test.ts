// Unit tests of console passwords: scrypt hashes that verify the right password only, each with its own salt.
import { describe, expect, it } from 'vitest';
import { hashPassword, MIN_PASSWORD_LENGTH, oneTimePassword, passwordProblem, verifyPassword } from './passwords.ts';

describe('console passwords', () => {
  it('verify the password they were made from, and refuse any other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    expect(stored.startsWith('scrypt$')).toBe(true);
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse battery staple', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct horse battery stapler', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('salt each hash apart, so that one password hashes differently twice', async () => {
    const [a, b] = await Promise.all([hashPassword('same password here'), hashPassword('same password here')]);
    expect(a).not.toBe(b);
    await expect(verifyPassword('same password here', b)).resolves.toBe(true);
  });

  it('match nothing against a stored value that is not a hash', async () => {
    for (const stored of ['', 'plain', 'scrypt$0$8$1$c2FsdA$aGFzaA', 'bcrypt$x$y$z$salt$hash']) {
      await expect(verifyPassword('anything at all', stored)).resolves.toBe(false);
    }
  });

  it('mint one-time passwords long enough to pass the length rule, different each time', () => {
    const a = oneTimePassword();
    expect(a.length).toBeGreaterThanOrEqual(MIN_PASSWORD_LENGTH);
    expect(passwordProblem(a)).toBeUndefined();
    expect(oneTimePassword()).not.toBe(a);
  });

  it('refuse a chosen password that is too short', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
  });
});
