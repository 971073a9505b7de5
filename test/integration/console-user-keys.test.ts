// Disabling or deleting a console user lists the keys they made, which still work, and revokes them when asked.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { getWorkspaceApiKey } from '#shared/api-keys/repository.ts';
import { OPERATOR } from '#shared/api-keys/schema.ts';
import { ConsoleBrowser } from './console-session.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

const USERS = '/console/settings/users';
const KEYS = '/console/settings/api-keys';

async function signedIn(workspace: TestWorkspace, roles: Array<'admin' | 'pricing'>) {
  const email = `person-${randomUUID()}@example.com`;
  const password = `chosen-${randomUUID()}`;
  await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles, password, createdBy: OPERATOR.id });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(email, password)).status).toBe(303);
  return { email, browser };
}

/** A pw_live key the signed-in admin makes in Settings → API keys. */
async function makeKey(browser: ConsoleBrowser, name: string): Promise<string> {
  const created = await browser.submit(KEYS, { _action: 'create', name, family: 'pw_live' });
  const key = /data-testid="new-key">(pw_live_\w+)</.exec(created.text)?.[1];
  if (!key) throw new Error(`no key shown: ${created.status}`);
  return key;
}

const usage = (key: string) => call('/v1/usage', { key });

describe("a console user's keys when the user goes", { timeout: 180_000 }, () => {
  for (const [action, done] of [
    ['disable', 'Disabled'],
    ['delete', 'Deleted'],
  ] as const) {
    it(`are listed when the user is ${action}d, keep working until revoked, and are revoked together on request`, async () => {
      const workspace = await newWorkspace('Leaving Admin');
      const leaving = await signedIn(workspace, ['admin']);
      const first = await makeKey(leaving.browser, 'Nightly export');
      const second = await makeKey(leaving.browser, 'Spreadsheet');
      const admin = await signedIn(workspace, ['admin']);
      const kept = await makeKey(admin.browser, 'Kept');

      const changed = await admin.browser.submit(USERS, { _action: action, email: leaving.email });
      expect(changed.status).toBe(200);
      const section = /<section[^>]*data-testid="user-keys"[\s\S]*?<\/section>/.exec(changed.text)?.[0] ?? '';
      expect(section).toContain(`${done} ${leaving.email}: 2 keys they made still work`);
      expect(section).toContain('“Nightly export”');
      expect(section).toContain('“Spreadsheet”');
      expect(section).not.toContain('“Kept”');
      expect((await usage(first)).status).toBe(200);

      const userId = /name="userId" value="(usr_\w+)"/.exec(section)?.[1] as string;
      const revoked = await admin.browser.submit(USERS, { _action: 'revokeKeys', userId, email: leaving.email });
      expect(revoked.status).toBe(303);
      for (const key of [first, second]) expect((await usage(key)).status).toBe(401);
      expect((await usage(kept)).status).toBe(200);
    });
  }

  it('are listed by the CLI when it disables the user, and revoked by its --revoke-keys when it deletes them', async () => {
    const workspace = await newWorkspace('Leaving By CLI');
    const leaving = await signedIn(workspace, ['admin']);
    const key = await makeKey(leaving.browser, 'Ad hoc');
    const admin = (...args: string[]) =>
      promisify(execFile)(
        process.execPath,
        ['bin/admin.ts', 'user', ...args, '--workspace', workspace.workspaceId, '--email', leaving.email, '--stack', inject('stackFile')],
        {
          cwd: projectRoot,
        },
      );
    const disabled = await admin('disable');
    expect(disabled.stdout).toMatch(/key_\w+ {2}Ad hoc {2}still works/);
    expect((await usage(key)).status).toBe(200);
    const deleted = await admin('delete', '--revoke-keys');
    const keyId = /(key_\w+) {2}Ad hoc {2}revoked/.exec(deleted.stdout)?.[1] as string;
    // The stack's instances refuse it within their cache's minute; the table says so at once.
    expect((await getWorkspaceApiKey(workspace.workspaceId, keyId))?.revokedAt).toEqual(expect.any(String));
  });

  it('go on as they were when the user made none: the list comes back with the notice alone', async () => {
    const workspace = await newWorkspace('Keyless User');
    const quiet = await signedIn(workspace, ['pricing']);
    const admin = await signedIn(workspace, ['admin']);
    const changed = await admin.browser.submit(USERS, { _action: 'disable', email: quiet.email });
    expect(changed.status).toBe(303);
  });
});
