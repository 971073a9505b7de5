// The connector CLI's help names only key families the service issues.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyFamilies } from '#shared/api-keys/schema.ts';
import { connectorCommand } from '../../client/src/connector/cli.ts';

describe('the connector CLI’s help', () => {
  afterEach(() => vi.restoreAllMocks());

  it('names no key family the service does not issue, and the connector’s own', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
    expect(await connectorCommand(['--help'])).toBe(0);
    const help = printed.join('\n');
    const named = [...help.matchAll(/\b((?:svc|pw)_[a-z]+)_?\b/g)].map((match) => match[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const family of named) expect(keyFamilies, String(family)).toContain(family);
    expect(help).toContain('svc_live_');
  });
});
