// Settings → users: the workspace's console users and their roles; creating one with a one-time password shown once, changing roles, disabling, enabling and deleting; changes need the admin role.
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ActionOutcome, ConsoleContext, ConsolePage, ConsoleRole, PageView } from '#edge/console/page.ts';
import { changeConsoleUser, type ConsoleUserChange, deleteConsoleUser } from '#edge/console/user-changes.ts';
import { type ConsoleUserRecord, consoleRoles, createConsoleUser, listConsoleUsers, roleDescriptions } from '#edge/console/users.ts';
import { keysCreatedBy } from '#shared/api-keys/repository.ts';
import { revokeUserKeysAction, type UserKeys, userKeysSection } from './user-keys.ts';

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
  readonly created?: { readonly email: string; readonly password: string };
  readonly error?: string;
  /** A user just disabled or deleted who made keys that still work. */
  readonly madeKeys?: UserKeys;
}

export function usersView({ ctx, users, created, error, madeKeys }: UsersViewInput): PageView {
  const body = html`<h1>Users</h1>
    <p>The people who sign in to this workspace's console. Every role reads every page; each role changes its own part.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''} ${madeKeys ? userKeysSection(ctx, USERS_PATH, madeKeys) : ''}
    ${
      created
        ? html`<section class="notice" aria-labelledby="new-user-heading">
            <h2 id="new-user-heading">New user ${created.email}</h2>
            <p>Hand on this one-time password; it is shown this once. At their first sign-in they choose their own.</p>
            <p class="secret" data-testid="new-password">${created.password}</p>
          </section>`
        : ''
    }
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

async function view(ctx: ConsoleContext, extra: Pick<UsersViewInput, 'created' | 'error' | 'madeKeys'> = {}): Promise<PageView> {
  return usersView({ ctx, users: await listConsoleUsers(ctx.user.workspaceId), ...extra });
}

/** A change to another user of the workspace, back to the list with what was done; a refused one is shown on the page. */
function changeAction(change: (form: Readonly<Record<string, string>>) => ConsoleUserChange | 'delete', done: string) {
  return {
    role: 'admin' as const,
    async run(ctx: ConsoleContext, form: Readonly<Record<string, string>>): Promise<ActionOutcome> {
      const email = (form.email ?? '').trim().toLowerCase();
      try {
        if (email === ctx.user.email) throw new ApiError('invalid_request', 'Your own user is changed by another admin.');
        const wanted = change(form);
        // Read before the change: a deleted user is no longer listed, and their keys are found by their id.
        const changed = (await listConsoleUsers(ctx.user.workspaceId)).find((user) => user.email === email);
        if (wanted === 'delete') await deleteConsoleUser(ctx.user.workspaceId, email);
        else await changeConsoleUser(ctx.user.workspaceId, email, wanted);
        const ending = wanted === 'delete' || ('status' in wanted && wanted.status === 'disabled');
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
          return { kind: 'show', view: await view(ctx, { created: { email: created.email, password: created.password } }) };
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
    delete: changeAction(() => 'delete', 'Deleted'),
    revokeKeys: revokeUserKeysAction(USERS_PATH),
  },
};
