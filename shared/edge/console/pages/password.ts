// Settings → password: the signed-in user chooses their own password, giving the current one; required before anything else after a one-time password.
import { ApiError } from '#platform/errors.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '#edge/console/passwords.ts';
import { adoptUserVersion } from '#edge/console/sessions.ts';
import { changeOwnPassword } from '#edge/console/user-changes.ts';
import { PASSWORD_PATH } from '#edge/console/users.ts';

function passwordField(id: string, label: string, autocomplete: string, hint?: string): Html {
  return html`<label for="${id}">${label}</label>
    <input
      id="${id}"
      name="${id}"
      type="password"
      autocomplete="${autocomplete}"
      required
      maxlength="${MAX_PASSWORD_LENGTH}"
      ${hint ? html`minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="${id}-hint"` : ''}
    />
    ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}`;
}

export function passwordView(ctx: ConsoleContext, error?: string): PageView {
  const first = ctx.user.mustChangePassword === true;
  const body = html`<h1>${first ? 'Choose your password' : 'Change your password'}</h1>
    ${
      first
        ? html`<p>You signed in with a one-time password that someone else has seen. Choose your own before you go on.</p>`
        : html`<p>Your other sessions end when the password changes; this one stays signed in.</p>`
    }
    ${error ? html`<p class="error" role="alert" id="password-error">${error}</p>` : ''}
    <form method="post" action="${PASSWORD_PATH}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="change" />
      ${passwordField('current', first ? 'One-time password' : 'Current password', 'current-password')}
      ${passwordField('password', 'New password', 'new-password', `At least ${MIN_PASSWORD_LENGTH} characters.`)}
      <div class="actions"><button type="submit">Save password</button></div>
    </form>`;
  return { title: first ? 'Choose your password' : 'Change your password', body };
}

export const passwordPage: ConsolePage = {
  path: PASSWORD_PATH,
  read: async (ctx) => passwordView(ctx),
  actions: {
    change: {
      role: 'any',
      async run(ctx, form) {
        try {
          const version = await changeOwnPassword(ctx.user, form.current ?? '', form.password ?? '', ctx.nowMs);
          if (ctx.sessionIdHash) await adoptUserVersion(ctx.sessionIdHash, version);
          return { kind: 'redirect', location: '/console', notice: 'Your password is changed.' };
        } catch (error) {
          if (error instanceof ApiError && error.status < 500 && error.status !== 404)
            return { kind: 'render', status: error.status === 429 ? 429 : 422, view: passwordView(ctx, error.message) };
          throw error;
        }
      },
    },
  },
};
