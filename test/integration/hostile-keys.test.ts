// Rotating API keys against the grain: an old key revoked by its rotation is refused at once, as a revoke's is, and a key already rotated cannot be rotated again.
import { describe, expect, it } from 'vitest';
import { listApiKeys } from '#shared/api-keys/repository.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { revealedSecret } from './console-reveals.ts';
import { ConsoleBrowser, type FollowedPost } from './console-session.ts';
import { workspaceItems, writesBetween } from './hostile-input-support.ts';
import { call, newWorkspace } from './support.ts';

const KEYS = '/console/settings/api-keys';

async function adminOf(workspaceId: string): Promise<ConsoleBrowser> {
  const user = await createConsoleUser({ workspaceId, email: `keys-${crypto.randomUUID()}@example.com`, roles: ['admin'] });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(user.email, user.password)).status).toBe(303);
  return browser;
}

/** Rotates a key in Settings → API keys, following the redirect to the page that shows the new key once. */
const rotate = (browser: ConsoleBrowser, keyId: string, graceHours: string): Promise<FollowedPost> =>
  browser.submitAndFollow(KEYS, { _action: 'rotate', keyId, graceHours });
/** The new key a rotation's page shows, or '' where it shows none. */
const newKeyOf = (rotated: FollowedPost) => revealedSecret(rotated.page, 'new-key') ?? '';
const overview = (key: string) => call('/v1/prices/NONE', { key });

describe('rotating a key with "revoke the old key now"', () => {
  it('refuses the old key on the very next request, though it was just used and remembered', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    expect((await overview(workspace.keys.pwLive)).status).not.toBe(401);
    const rotated = await rotate(browser, workspace.keyIds.pwLive, '0');
    expect(rotated.posted.status).toBe(303);
    const old = await overview(workspace.keys.pwLive);
    expect(old.status).toBe(401);
    expect(newKeyOf(rotated)).toMatch(/^pw_live_/);
    expect((await overview(newKeyOf(rotated))).status).not.toBe(401);
  });
});

describe('rotating a key again within its grace period', () => {
  it('is refused with a message that says why, and changes nothing: no second new key, the same end of grace', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    const first = await rotate(browser, workspace.keyIds.pwLive, '24');
    expect(first.posted.status).toBe(303);
    expect(newKeyOf(first)).toMatch(/^pw_live_/);
    const before = await workspaceItems(workspace.workspaceId);
    for (const graceHours of ['0', '1', '24', '720']) {
      // Refused on the form's own page, with no redirect: there is no page that could show a second new key.
      const again = await rotate(browser, workspace.keyIds.pwLive, graceHours);
      expect(again.posted.status).toBe(422);
      expect(again.posted.text).toContain(`Key ${workspace.keyIds.pwLive} was already rotated`);
      // On the keys page itself, beside the list that shows the key which replaced it, not on a page of its own.
      expect(again.posted.text).toContain('<h1>API keys</h1>');
      expect(again.posted.text).toContain(`rotated from ${workspace.keyIds.pwLive}`);
      expect(revealedSecret(again.posted, 'new-key')).toBeUndefined();
      expect(again.page).toBeUndefined();
    }
    expect(writesBetween(before, await workspaceItems(workspace.workspaceId))).toEqual([]);
    expect(revealedSecret(await browser.get(KEYS), 'new-key')).toBeUndefined();
    expect((await overview(workspace.keys.pwLive)).status).not.toBe(401);
    expect((await overview(newKeyOf(first))).status).not.toBe(401);
  });

  it('lets the key that replaced it be rotated in turn', async () => {
    const workspace = await newWorkspace();
    const browser = await adminOf(workspace.workspaceId);
    expect((await rotate(browser, workspace.keyIds.pwLive, '1')).posted.status).toBe(303);
    const successor = (await listApiKeys(workspace.workspaceId)).find((key) => key.rotatedFrom === workspace.keyIds.pwLive);
    const next = await rotate(browser, successor?.keyId ?? '', '1');
    expect(next.posted.status).toBe(303);
    expect(newKeyOf(next)).toMatch(/^pw_live_/);
  });

  it('mints one successor when two rotations of the same key are sent at once', async () => {
    const workspace = await newWorkspace();
    const [first, second] = await Promise.all([adminOf(workspace.workspaceId), adminOf(workspace.workspaceId)]);
    // Both posts go at once; each browser then opens its own redirect, if it had one, with its own session.
    const answers = await Promise.all([first, second].map((browser) => rotate(browser, workspace.keyIds.pwLive, '24')));
    expect(answers.filter((answer) => newKeyOf(answer).startsWith('pw_live_'))).toHaveLength(1);
    const successors = (await listApiKeys(workspace.workspaceId)).filter((key) => key.rotatedFrom === workspace.keyIds.pwLive);
    expect(successors).toHaveLength(1);
  });
});
