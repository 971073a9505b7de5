// The keys a console user made, shown when the user is disabled or deleted, and revoked together on request.
import { forgetCachedCredentials } from '#shared/api-keys/authenticate.ts';
import { revokeKeysCreatedBy } from '#shared/api-keys/repository.ts';
import type { ApiKeyRecord } from '#shared/api-keys/schema.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, PageAction } from '#edge/console/page.ts';
import { keyTitle, maskedKey } from './api-key-list.ts';

/** A user just disabled or deleted, and the keys they made that still work. */
export interface UserKeys {
  readonly email: string;
  readonly userId: string;
  readonly done: string;
  readonly keys: readonly ApiKeyRecord[];
}

/**
 * What the page says after disabling or deleting a user who made keys: the keys still work (a key is not its maker's
 * session), listed with the one form that revokes them all.
 */
export function userKeysSection(ctx: ConsoleContext, usersPath: string, made: UserKeys): Html {
  const count = made.keys.length;
  return html`<section class="notice" aria-labelledby="user-keys-heading" data-testid="user-keys">
    <h2 id="user-keys-heading" tabindex="-1">${made.done} ${made.email}: ${count} key${count === 1 ? '' : 's'} they made still work</h2>
    <ul>
      ${made.keys.map((key) => html`<li>${keyTitle(key)} ${maskedKey(key)} (${key.keyId}), ${key.family}</li>`)}
    </ul>
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
      const revoked = /^usr_\w+$/.test(userId) ? await revokeKeysCreatedBy(ctx.user.workspaceId, userId, new Date(ctx.nowMs)) : [];
      // Where the API's handlers share this process (local mode) they refuse the keys at once, as a single revoke does.
      forgetCachedCredentials();
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
