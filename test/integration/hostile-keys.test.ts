// Rotating API keys against the grain: an old key revoked by its rotation is refused at once, as a revoke's is, and a key already rotated cannot be rotated again.
import { describe, expect, it } from 'vitest';
import { listApiKeys } from '#shared/api-keys/repository.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { ConsoleBrowser } from './console-session.ts';
import { workspaceItems, writesBetween } from './hostile-input-support.ts';
import { call, newWorkspace } from './support.ts';

const KEYS = '/console/settings/api-keys';

async function adminOf(workspaceId: string): Promise<ConsoleBrowser> {
  const user = await createConsoleUser({ workspaceId, email: `keys-${crypto.randomUUID()}@example.com`, roles: ['admin'] });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

const newKeyOf = (page: string) => /data-testid="new-key">([^<]+)</.exec(page)?.[1] ?? '';
const overview = (key: string) => call('/v1/prices/NONE', { key });

describe('rotating a key with "revoke the old key now"', () => {
  it('refuses the old key on the very next request, though it was just used and remembered', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    expect((await overview(workspace.keys.pwLive)).status).not.toBe(401);
    const rotated = await browser.submit(KEYS, { _action: 'rotate', keyId: workspace.keyIds.pwLive, graceHours: '0' });
    expect(rotated.status).toBe(200);
    const old = await overview(workspace.keys.pwLive);
    expect(old.status).toBe(401);
    expect((await overview(newKeyOf(rotated.text))).status).not.toBe(401);
  });
});

describe('rotating a key again within its grace period', () => {
  it('is refused with a message that says why, and changes nothing: no second new key, the same end of grace', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    const first = await browser.submit(KEYS, { _action: 'rotate', keyId: workspace.keyIds.pwLive, graceHours: '24' });
    expect(first.status).toBe(200);
    const before = await workspaceItems(workspace.workspaceId);
    for (const graceHours of ['0', '1', '24', '720']) {
      const again = await browser.submit(KEYS, { _action: 'rotate', keyId: workspace.keyIds.pwLive, graceHours });
      expect(again.status).toBe(422);
      expect(again.text).toContain(`key ${workspace.keyIds.pwLive} was already rotated`);
      expect(newKeyOf(again.text)).toBe('');
    }
    expect(writesBetween(before, await workspaceItems(workspace.workspaceId))).toEqual([]);
    expect((await overview(workspace.keys.pwLive)).status).not.toBe(401);
    expect((await overview(newKeyOf(first.text))).status).not.toBe(401);
  });

  it('lets the key that replaced it be rotated in turn', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    expect((await browser.submit(KEYS, { _action: 'rotate', keyId: workspace.keyIds.pwLive, graceHours: '1' })).status).toBe(200);
    const successor = (await listApiKeys(workspace.workspaceId)).find((key) => key.rotatedFrom === workspace.keyIds.pwLive);
    const next = await browser.submit(KEYS, { _action: 'rotate', keyId: successor?.keyId ?? '', graceHours: '1' });
    expect(next.status).toBe(200);
    expect(newKeyOf(next.text)).toMatch(/^pw_live_/);
  });

  it('mints one successor when two rotations of the same key are sent at once', async () => {
    const workspace = await newWorkspace();
    const [first, second] = await Promise.all([adminOf(workspace.workspaceId), adminOf(workspace.workspaceId)]);
    const answers = await Promise.all(
      [first, second].map((browser) => browser.submit(KEYS, { _action: 'rotate', keyId: workspace.keyIds.pwLive, graceHours: '24' })),
    );
    expect(answers.filter((answer) => newKeyOf(answer.text).startsWith('pw_live_'))).toHaveLength(1);
    const successors = (await listApiKeys(workspace.workspaceId)).filter((key) => key.rotatedFrom === workspace.keyIds.pwLive);
    expect(successors).toHaveLength(1);
  });
});
