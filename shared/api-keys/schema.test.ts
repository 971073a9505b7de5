// Unit tests of a key's name: what is kept, and what is refused with the field named.
import { describe, expect, it } from 'vitest';
import { checkGrant } from './repository.ts';
import { MAX_KEY_NAME_LENGTH, readKeyName } from './schema.ts';

function refusal(name: unknown): unknown {
  try {
    readKeyName(name);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a key’s name', () => {
  it('is kept trimmed', () => {
    expect(readKeyName('  ERP sync ')).toBe('ERP sync');
    expect(readKeyName('Entrepôt Lyon – prix')).toBe('Entrepôt Lyon – prix');
  });

  it('is refused empty or blank, naming the field', () => {
    for (const name of ['', '   ', undefined, 42]) {
      expect(refusal(name)).toMatchObject({ code: 'invalid_request', param: 'name' });
    }
  });

  it(`is refused past ${MAX_KEY_NAME_LENGTH} characters`, () => {
    expect(readKeyName('x'.repeat(MAX_KEY_NAME_LENGTH))).toHaveLength(MAX_KEY_NAME_LENGTH);
    expect(refusal('x'.repeat(MAX_KEY_NAME_LENGTH + 1))).toMatchObject({ param: 'name', message: expect.stringContaining('longer than') });
  });

  it('is refused with control or invisible formatting characters, which could hide or reorder what a list shows', () => {
    for (const name of ['ERP\nsync', 'ERP\u0000', 'tab\there', 'bell\u0007', 'c1\u0085', 'safe\u202Eevil', 'zero\u200Bwidth']) {
      expect(refusal(name)).toMatchObject({ code: 'invalid_request', param: 'name' });
    }
  });

  it('is checked with the rest of a grant, before anything is minted', () => {
    expect(() => checkGrant({ workspaceId: 'ws', name: 'ok\u0000', family: 'pw_live', scopes: [] })).toThrow(
      expect.objectContaining({ param: 'name' }),
    );
    expect(() => checkGrant({ workspaceId: 'ws', name: 'Reporting', family: 'pw_live', scopes: [] })).not.toThrow();
  });
});
