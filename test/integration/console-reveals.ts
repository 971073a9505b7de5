// The secrets the console shows once, on the page a form's redirect leads to, read there as a person copies them: a new API key, a new user's one-time password, a webhook signing secret.
import type { ConsoleRole, Reveal } from '#edge/console/page.ts';
import type { ConsoleBrowser, PageAnswer } from './console-session.ts';

export const KEYS_PATH = '/console/settings/api-keys';
export const USERS_PATH = '/console/settings/users';

/** The secret a page shows in the element of its kind (`data-testid`), or undefined where it shows none. */
export function revealedSecret(page: PageAnswer | undefined, kind: Reveal['kind']): string | undefined {
  return new RegExp(`data-testid="${kind}">([^<]+)<`).exec(page?.text ?? '')?.[1];
}

/**
 * A key the signed-in admin makes in Settings → API keys, a pw_live one unless `fields` says otherwise, copied from
 * the page the form leads to.
 */
export async function makeKey(
  browser: ConsoleBrowser,
  name: string,
  fields: Record<string, string | readonly string[]> = {},
): Promise<string> {
  const { posted, page } = await browser.submitAndFollow(KEYS_PATH, { _action: 'create', name, family: 'pw_live', ...fields });
  const key = revealedSecret(page, 'new-key');
  if (!key) throw new Error(`no key shown after creating “${name}”: the post answered ${posted.status}, its page ${page?.status}`);
  return key;
}

/** The one-time password of a user the signed-in admin creates in Settings → Users, copied from the page the form leads to. */
export async function makeUser(browser: ConsoleBrowser, email: string, roles: readonly ConsoleRole[]): Promise<string> {
  const { posted, page } = await browser.submitAndFollow(USERS_PATH, { _action: 'create', email, roles });
  const password = revealedSecret(page, 'new-password');
  if (!password)
    throw new Error(`no one-time password shown after creating ${email}: the post answered ${posted.status}, its page ${page?.status}`);
  return password;
}
