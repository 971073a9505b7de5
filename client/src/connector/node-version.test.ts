// Unit tests of the packaged command's Node.js check.
import { describe, expect, it } from 'vitest';
import { nodeRefusal } from './node-version.ts';

describe("the packaged command's Node.js check", () => {
  it('refuses a Node.js older than the engines bound, in one line naming both versions', () => {
    const refusal = nodeRefusal('v20.11.1', '>=24');
    expect(refusal).toMatch(/^pricing-connector needs Node\.js 24 or newer .*this is Node\.js v20\.11\.1\./);
    expect(refusal).not.toContain('\n');
    expect(nodeRefusal('v24.0.0', '>=24.1')).toBeDefined();
  });

  it('lets the bound itself and anything newer run, and refuses nothing on an engines field it cannot read', () => {
    expect(nodeRefusal('v24.0.0', '>=24')).toBeUndefined();
    expect(nodeRefusal('v25.2.0', '>=24.1')).toBeUndefined();
    expect(nodeRefusal('v20.0.0', '^24')).toBeUndefined();
    expect(nodeRefusal('v20.0.0', undefined)).toBeUndefined();
  });
});
