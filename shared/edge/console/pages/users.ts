// Settings → users: the workspace's console users and their roles; creating one with a one-time password shown once (after the redirect), changing roles, disabling, enabling and deleting (once confirmed); changes need the admin role.
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import {
  type ActionOutcome,
  type ConsoleContext,
  type ConsolePage,
  type ConsoleRole,
  type PageAction,
  type PageView,
  revealSection,
} from '#edge/console/page.ts';
import { changeConsoleUser, type ConsoleUserChange, deleteConsoleUser } from '#edge/console/user-changes.ts';
import { type ConsoleUserRecord, consoleRoles, createConsoleUser, listConsoleUsers, roleDescriptions } from '#edge/console/users.ts';
import { keysCreatedBy } from '#shared/api-keys/repository.ts';
import type { ApiKeyRecord } from '#shared/api-keys/schema.ts';
import { deleteConfirmation, keysLeftWords, revokeUserKeys, revokeUserKeysAction, type UserKeys, userKeysSection } from './user-keys.ts';

export const USERS_PATH = '/console/settings/users';

function createForm(ctx: ConsoleContext): Html {
  if (!ctx.user.roles.includes('admin')) return html`<p class="muted">Creating users needs the admin role.</p>`;
  return html`<form method="post" action="${USERS_PATH}">
    <fieldset>
      <legend>New user</legend>
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="create" />
      <label for="new-user-email">Email</label>
      <input id="new-user-email" name="email" type="email" autocomplete="off" required />
      <fieldset>
        <legend>Roles</legend>
        ${consoleRoles.map(
          (role) =>
            html`<label class="choice"><input type="checkbox" name="roles" value="${role}" /> ${role}: ${roleDescriptions[role]}</label>`,
        )}
      </fieldset>
      <div class="actions"><button type="submit">Create user</button></div>
    </fieldset>
  </form>`;
}

function statusOf(user: ConsoleUserRecord): Html {
  if (user.status === 'disabled') return html`<span class="status-bad">disabled</span>`;
  if (user.mustChangePassword) return html`<span class="status-warn">active, has not chosen a password yet</span>`;
  return html`<span class="status-ok">active</span>`;
}

function actionForm(ctx: ConsoleContext, user: ConsoleUserRecord, action: string, label: string, kind: 'secondary' | 'danger'): Html {
  return html`<form class="inline" method="post" action="${USERS_PATH}">
    <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
    <input type="hidden" name="_action" value="${action}" />
    <input type="hidden" name="email" value="${user.email}" />
    <button type="submit" class="${kind}" aria-label="${label} ${user.email}">${label}</button>
  </form>`;
}

/** An admin changes everyone but themselves here, so that no admin locks the workspace out by a slip of the mouse. */
function userActions(ctx: ConsoleContext, user: ConsoleUserRecord): Html {
  if (user.userId === ctx.user.userId) return html`<span class="muted">you</span>`;
  const id = user.userId;
  return html`<form class="inline" method="post" action="${USERS_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="roles" />
      <input type="hidden" name="email" value="${user.email}" />
      <fieldset class="inline">
        <legend class="visually-hidden">Roles of ${user.email}</legend>
        ${consoleRoles.map(
          (role) =>
            html`<label class="choice" for="${id}-${role}"
              ><input id="${id}-${role}" type="checkbox" name="roles" value="${role}" ${user.roles.includes(role) ? html`checked` : ''} />
              ${role}</label
            >`,
        )}
      </fieldset>
      <button type="submit" class="secondary" aria-label="Save roles of ${user.email}">Save roles</button>
    </form>
    ${user.status === 'disabled' ? actionForm(ctx, user, 'enable', 'Enable', 'secondary') : actionForm(ctx, user, 'disable', 'Disable', 'secondary')}
    ${actionForm(ctx, user, 'delete', 'Delete', 'danger')}`;
}

interface UsersViewInput {
  readonly ctx: ConsoleContext;
  readonly users: readonly ConsoleUserRecord[];
  readonly error?: string;
  /** A user just disabled who made keys that still work. */
  readonly madeKeys?: UserKeys;
  /** A user whose deletion waits for its confirmation, with the keys they made that still work. */
  readonly deleting?: { readonly user: ConsoleUserRecord; readonly keys: readonly ApiKeyRecord[] };
}

export function usersView({ ctx, users, error, madeKeys, deleting }: UsersViewInput): PageView {
  const body = html`<h1>Users</h1>
    <p>The people who sign in to this workspace's console. Every role reads every page; each role changes its own part.</p>
    ${deleting ? deleteConfirmation(ctx, USERS_PATH, deleting.user, deleting.keys) : ''}
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''} ${madeKeys ? userKeysSection(ctx, USERS_PATH, madeKeys) : ''}
    ${revealSection(ctx.reveal)}
    <div class="table-wrap" tabindex="0" role="region" aria-label="Console users of the workspace">
      <table>
        <caption class="muted">
          Console users of the workspace
        </caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Roles</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            ${ctx.user.roles.includes('admin') ? html`<th scope="col">Change</th>` : ''}
          </tr>
        </thead>
        <tbody>
          ${users.map(
            (user) =>
              html`<tr>
                <th scope="row">${user.email}</th>
                <td>${user.roles.join(', ')}</td>
                <td>${statusOf(user)}</td>
                <td>${user.createdAt.slice(0, 16).replace('T', ' ')} UTC</td>
                ${ctx.user.roles.includes('admin') ? html`<td>${userActions(ctx, user)}</td>` : ''}
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <h2>Create a user</h2>
    ${createForm(ctx)}`;
  return { title: 'Users', body };
}

async function view(ctx: ConsoleContext, extra: Pick<UsersViewInput, 'error' | 'madeKeys' | 'deleting'> = {}): Promise<PageView> {
  return usersView({ ctx, users: await listConsoleUsers(ctx.user.workspaceId), ...extra });
}

/** The user of the workspace a form names, other than the one signed in; a refusal a person can act on otherwise. */
async function otherUserOf(ctx: ConsoleContext, form: Readonly<Record<string, string>>): Promise<ConsoleUserRecord> {
  const email = (form.email ?? '').trim().toLowerCase();
  if (email === ctx.user.email) throw new ApiError('invalid_request', 'Your own user is changed by another admin.');
  const user = (await listConsoleUsers(ctx.user.workspaceId)).find((candidate) => candidate.email === email);
  if (!user) throw new ApiError('not_found', `There is no console user ${email} in this workspace.`);
  return user;
}

/**
 * Deleting a user cannot be undone, so the row's button only leads to a step that names the user and the keys they
 * made that still work; only that step's form, carrying `confirmed=yes`, deletes (and revokes the keys if ticked).
 */
const deleteAction: PageAction = {
  role: 'admin',
  async run(ctx, form) {
    try {
      const user = await otherUserOf(ctx, form);
      const keys = await keysCreatedBy(ctx.user.workspaceId, user.userId, ctx.nowMs);
      if (form.confirmed !== 'yes') return { kind: 'show', view: await view(ctx, { deleting: { user, keys } }) };
      await deleteConsoleUser(ctx.user.workspaceId, user.email);
      const revoked = form.revokeKeys === 'yes' ? await revokeUserKeys(ctx, user.userId) : [];
      return { kind: 'redirect', location: USERS_PATH, notice: `Deleted ${user.email}.${keysLeftWords(keys.length, revoked)}` };
    } catch (error) {
      if (error instanceof ApiError && error.status < 500 && error.status !== 404) {
        return { kind: 'render', status: 422, view: await view(ctx, { error: error.message }) };
      }
      throw error;
    }
  },
};

/** A change to another user of the workspace, back to the list with what was done; a refused one is shown on the page. */
function changeAction(change: (form: Readonly<Record<string, string>>) => ConsoleUserChange, done: string) {
  return {
    role: 'admin' as const,
    async run(ctx: ConsoleContext, form: Readonly<Record<string, string>>): Promise<ActionOutcome> {
      const email = (form.email ?? '').trim().toLowerCase();
      try {
        if (email === ctx.user.email) throw new ApiError('invalid_request', 'Your own user is changed by another admin.');
        const wanted = change(form);
        const changed = (await listConsoleUsers(ctx.user.workspaceId)).find((user) => user.email === email);
        await changeConsoleUser(ctx.user.workspaceId, email, wanted);
        const ending = 'status' in wanted && wanted.status === 'disabled';
        const keys = ending && changed ? await keysCreatedBy(ctx.user.workspaceId, changed.userId, ctx.nowMs) : [];
        if (changed && keys.length > 0) {
          return { kind: 'show', view: await view(ctx, { madeKeys: { email, userId: changed.userId, done, keys } }) };
        }
        return { kind: 'redirect', location: USERS_PATH, notice: `${done} ${email}.` };
      } catch (error) {
        if (error instanceof ApiError && error.status < 500 && error.status !== 404) {
          return { kind: 'render', status: 422, view: await view(ctx, { error: error.message }) };
        }
        throw error;
      }
    },
  };
}

export const usersPage: ConsolePage = {
  path: USERS_PATH,
  nav: 'Users',
  read: (ctx) => view(ctx),
  actions: {
    create: {
      role: 'admin',
      async run(ctx, form) {
        const roles = (form.roles ?? '').split(',').filter(Boolean) as ConsoleRole[];
        try {
          const created = await createConsoleUser(
            { workspaceId: ctx.user.workspaceId, email: form.email ?? '', roles, createdBy: ctx.user.userId },
            new Date(ctx.nowMs),
          );
          return {
            kind: 'redirect',
            location: USERS_PATH,
            reveal: {
              kind: 'new-password',
              heading: "The new user's one-time password",
              advice: `For ${created.email}: hand it on; it is shown this once. At their first sign-in they choose their own.`,
              secret: created.password,
            },
          };
        } catch (error) {
          if (error instanceof ApiError && error.status < 500)
            return { kind: 'render', status: 422, view: await view(ctx, { error: error.message }) };
          throw error;
        }
      },
    },
    roles: changeAction((form) => ({ roles: (form.roles ?? '').split(',').filter(Boolean) as ConsoleRole[] }), 'Changed the roles of'),
    disable: changeAction(() => ({ status: 'disabled' }), 'Disabled'),
    enable: changeAction(() => ({ status: 'active' }), 'Enabled'),
    delete: deleteAction,
    revokeKeys: revokeUserKeysAction(USERS_PATH),
  },
};
