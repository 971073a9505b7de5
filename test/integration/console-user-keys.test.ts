// Disabling or deleting a console user lists the keys they made, which still work, and revokes them when asked.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { createConsoleUser } from '#edge/console/users.ts';
import { getWorkspaceApiKey } from '#shared/api-keys/repository.ts';
import { OPERATOR } from '#shared/api-keys/schema.ts';
import { makeKey, USERS_PATH as USERS } from './console-reveals.ts';
import { ConsoleBrowser } from './console-session.ts';
import { call, newWorkspace, type TestWorkspace } from './support.ts';

async function signedIn(workspace: TestWorkspace, roles: Array<'admin' | 'pricing'>) {
  const email = `person-${randomUUID()}@example.com`;
  const password = `chosen-${randomUUID()}`;
  await createConsoleUser({ workspaceId: workspace.workspaceId, email, roles, password, createdBy: OPERATOR.id });
  const browser = new ConsoleBrowser();
  expect((await browser.signIn(email, password)).status).toBe(303);
  return { email, browser };
}

const usage = (key: string) => call('/v1/usage', { key });

describe("a console user's keys when the user goes", { timeout: 180_000 }, () => {
  /** A workspace where one admin made two keys and another made one: the first admin is about to go. */
  async function leavingWithKeys() {
    const workspace = await newWorkspace('Leaving Admin');
    const leaving = await signedIn(workspace, ['admin']);
    const first = await makeKey(leaving.browser, 'Nightly export');
    const second = await makeKey(leaving.browser, 'Spreadsheet');
    const admin = await signedIn(workspace, ['admin']);
    const kept = await makeKey(admin.browser, 'Kept');
    return { leaving, admin, made: [first, second], kept };
  }

  it('are listed when the user is disabled, keep working until revoked, and are revoked together on request', async () => {
    const { leaving, admin, made, kept } = await leavingWithKeys();

    const changed = await admin.browser.submit(USERS, { _action: 'disable', email: leaving.email });
    expect(changed.status).toBe(200);
    const section = /<section[^>]*data-testid="user-keys"[\s\S]*?<\/section>/.exec(changed.text)?.[0] ?? '';
    expect(section).toContain(`Disabled ${leaving.email}: 2 keys they made still work`);
    expect(section).toContain('“Nightly export”');
    expect(section).toContain('“Spreadsheet”');
    expect(section).not.toContain('“Kept”');
    for (const key of made) expect((await usage(key)).status).toBe(200);

    const userId = /name="userId" value="(usr_\w+)"/.exec(section)?.[1] as string;
    const revoked = await admin.browser.submit(USERS, { _action: 'revokeKeys', userId, email: leaving.email });
    expect(revoked.status).toBe(303);
    for (const key of made) expect((await usage(key)).status).toBe(401);
    expect((await usage(kept)).status).toBe(200);
  });

  it('are listed in the step that confirms deleting the user, keep working until it is confirmed, and are revoked with the user when asked', async () => {
    const { leaving, admin, made, kept } = await leavingWithKeys();

    // The row's Delete only asks: the step names the keys that would go on working, and deletes nothing yet.
    const asked = await admin.browser.submit(USERS, { _action: 'delete', email: leaving.email });
    expect(asked.status).toBe(200);
    const section = /<section[^>]*data-testid="delete-user"[\s\S]*?<\/section>/.exec(asked.text)?.[0] ?? '';
    expect(section).toContain('2 keys they made still work');
    expect(section).toContain('“Nightly export”');
    expect(section).toContain('“Spreadsheet”');
    expect(section).not.toContain('“Kept”');
    expect(section).toContain('name="revokeKeys" value="yes"');
    expect((await admin.browser.get(USERS)).text).toContain(leaving.email);
    for (const key of made) expect((await usage(key)).status).toBe(200);

    const deleted = await admin.browser.submitAndFollow(USERS, {
      _action: 'delete',
      email: leaving.email,
      confirmed: 'yes',
      revokeKeys: 'yes',
    });
    expect(deleted.posted.status).toBe(303);
    expect(deleted.page?.text).toContain(`Deleted ${leaving.email}. Revoked the 2 keys they made:`);
    for (const key of made) expect((await usage(key)).status).toBe(401);
    expect((await usage(kept)).status).toBe(200);
    expect((await leaving.browser.get('/console')).status).toBe(303);
  });

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
