// Settings → users: the workspace's console users and their roles, and creating one with a one-time password shown once; changes need the admin role.
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, ConsoleRole, PageView } from '#edge/console/page.ts';
import { type ConsoleUserRecord, consoleRoles, createConsoleUser, listConsoleUsers, roleDescriptions } from '#edge/console/users.ts';

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

interface UsersViewInput {
  readonly ctx: ConsoleContext;
  readonly users: readonly ConsoleUserRecord[];
  readonly created?: { readonly email: string; readonly password: string };
  readonly error?: string;
}

export function usersView({ ctx, users, created, error }: UsersViewInput): PageView {
  const body = html`<h1>Users</h1>
    <p>The people who sign in to this workspace's console. Every role reads every page; each role changes its own part.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${
      created
        ? html`<section class="notice" aria-labelledby="new-user-heading">
            <h2 id="new-user-heading">New user ${created.email}</h2>
            <p>Hand on this one-time password; it is shown this once.</p>
            <p class="secret" data-testid="new-password">${created.password}</p>
          </section>`
        : ''
    }
    <table>
      <caption class="muted">
        Console users of the workspace
      </caption>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Roles</th>
          <th scope="col">Created</th>
        </tr>
      </thead>
      <tbody>
        ${users.map(
          (user) =>
            html`<tr>
              <th scope="row">${user.email}</th>
              <td>${user.roles.join(', ')}</td>
              <td>${user.createdAt.slice(0, 16).replace('T', ' ')} UTC</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <h2>Create a user</h2>
    ${createForm(ctx)}`;
  return { title: 'Users', body };
}

async function view(ctx: ConsoleContext, extra: Pick<UsersViewInput, 'created' | 'error'> = {}): Promise<PageView> {
  return usersView({ ctx, users: await listConsoleUsers(ctx.user.workspaceId), ...extra });
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
            { workspaceId: ctx.user.workspaceId, email: form.email ?? '', roles },
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
  },
};
