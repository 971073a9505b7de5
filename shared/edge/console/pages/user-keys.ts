// The keys a console user made: named in the step that confirms deleting the user, shown when the user is disabled, and revoked together on request.
import { forgetCachedCredentials } from '#shared/api-keys/authenticate.ts';
import { revokeKeysCreatedBy } from '#shared/api-keys/repository.ts';
import type { ApiKeyRecord } from '#shared/api-keys/schema.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, PageAction } from '#edge/console/page.ts';
import type { ConsoleUserRecord } from '#edge/console/users.ts';
import { keyTitle, maskedKey } from './api-key-list.ts';

function keysCount(count: number): string {
  return `${count} key${count === 1 ? '' : 's'}`;
}

function keyItems(keys: readonly ApiKeyRecord[]): Html {
  return html`<ul>
    ${keys.map((key) => html`<li>${keyTitle(key)} ${maskedKey(key)} (${key.keyId}), ${key.family}</li>`)}
  </ul>`;
}

/**
 * The step before deleting a user: who it is, what ends, and the keys they made that still work, which a deletion
 * leaves working unless the box is ticked. Only this form's post, with `confirmed=yes`, deletes.
 */
export function deleteConfirmation(ctx: ConsoleContext, usersPath: string, user: ConsoleUserRecord, keys: readonly ApiKeyRecord[]): Html {
  const count = keys.length;
  return html`<section class="confirm-revoke" aria-labelledby="delete-user-heading" data-testid="delete-user">
    <h2 id="delete-user-heading">Delete this user?</h2>
    <p>
      <strong>${user.email}</strong> (${user.roles.join(', ')}) will no longer sign in, and their open sessions end at their next request.
      This cannot be undone: to have them back, create the user again, with a new one-time password.
    </p>
    ${
      count === 0
        ? html`<p>They made no key that still works.</p>`
        : html`<p>
              ${keysCount(count)} they made still work${count === 1 ? 's' : ''}, and go${count === 1 ? 'es' : ''} on working after the user
              is deleted, approving as ${user.email}:
            </p>
            ${keyItems(keys)}`
    }
    <form method="post" action="${usersPath}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="delete" />
      <input type="hidden" name="email" value="${user.email}" />
      <input type="hidden" name="confirmed" value="yes" />
      ${
        count === 0
          ? ''
          : html`<p>
              <label class="choice"
                ><input type="checkbox" name="revokeKeys" value="yes" /> Revoke the ${keysCount(count)} they made as well</label
              >
            </p>`
      }
      <button type="submit" class="danger">Delete user</button>
      <a href="${usersPath}">Cancel</a>
    </form>
  </section>`;
}

/** What a deletion did to the keys its user made: revoked, or still working and where to revoke them. */
export function keysLeftWords(made: number, revoked: readonly ApiKeyRecord[]): string {
  const left = made - revoked.length;
  return [
    revoked.length > 0
      ? ` Revoked the ${keysCount(revoked.length)} they made: ${revoked.map((key) => `${keyTitle(key)} (${key.keyId})`).join(', ')}.`
      : '',
    left > 0
      ? ` ${keysCount(left)} they made still work${left === 1 ? 's' : ''}: revoke ${left === 1 ? 'it' : 'them'} under API keys.`
      : '',
  ].join('');
}

/** Revokes every working key the user made, in the signed-in user's workspace only. */
export async function revokeUserKeys(ctx: ConsoleContext, userId: string): Promise<ApiKeyRecord[]> {
  const revoked = /^usr_\w+$/.test(userId) ? await revokeKeysCreatedBy(ctx.user.workspaceId, userId, new Date(ctx.nowMs)) : [];
  // Where the API's handlers share this process (local mode) they refuse the keys at once, as a single revoke does.
  forgetCachedCredentials();
  return revoked;
}

/** A user just disabled, and the keys they made that still work. */
export interface UserKeys {
  readonly email: string;
  readonly userId: string;
  readonly done: string;
  readonly keys: readonly ApiKeyRecord[];
}

/**
 * What the page says after disabling a user who made keys: the keys still work (a key is not its maker's session),
 * listed with the one form that revokes them all.
 */
export function userKeysSection(ctx: ConsoleContext, usersPath: string, made: UserKeys): Html {
  const count = made.keys.length;
  return html`<section class="notice" aria-labelledby="user-keys-heading" data-testid="user-keys">
    <h2 id="user-keys-heading" tabindex="-1">${made.done} ${made.email}: ${count} key${count === 1 ? '' : 's'} they made still work</h2>
    ${keyItems(made.keys)}
    <form method="post" action="${usersPath}">
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="revokeKeys" />
      <input type="hidden" name="userId" value="${made.userId}" />
      <input type="hidden" name="email" value="${made.email}" />
      <button type="submit" class="danger">Revoke the ${count} key${count === 1 ? '' : 's'} ${made.email} made</button>
      <span class="muted">or keep them: they go on working, and approve as ${made.email}.</span>
    </form>
  </section>`;
}

/** Revokes every working key the named user made, in this workspace only; back to the list with what was revoked. */
export function revokeUserKeysAction(usersPath: string): PageAction {
  return {
    role: 'admin',
    async run(ctx, form) {
      const userId = form.userId ?? '';
      const revoked = await revokeUserKeys(ctx, userId);
      const names = revoked.map((key) => `${keyTitle(key)} (${key.keyId})`).join(', ');
      const who = form.email ?? userId;
      return {
        kind: 'redirect',
        location: usersPath,
        notice: revoked.length === 0 ? `No working key made by ${who} was left to revoke.` : `Revoked the keys ${who} made: ${names}.`,
      };
    },
  };
}
