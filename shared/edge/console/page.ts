// The contract between the console's router and its pages: what a page reads, what it renders, and what its forms may change.
import type { Feature } from '#shared/workspaces/schema.ts';
import type { Html } from './html.ts';

export type ConsoleRole = 'admin' | 'pricing' | 'finance';

/** The signed-in person a page serves: every role may read, and each form names the role it needs. */
export interface ConsoleUser {
  readonly userId: string;
  readonly email: string;
  readonly workspaceId: string;
  readonly roles: readonly ConsoleRole[];
  /** Signed in with a one-time password: every page but the password page sends them there. */
  readonly mustChangePassword?: boolean;
  /** When the user was made, and by whom (a user id or `operator`): a second approval looks at both. */
  readonly createdAt?: string;
  readonly createdBy?: string;
}

export interface ConsoleContext {
  readonly user: ConsoleUser;
  /** Path parameters of the page's pattern, e.g. `{ sku: 'LAMP-1' }` for /console/recommendations/{sku}. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The token every state-changing form carries in its `_csrf` field; the router checks it before any action runs. */
  readonly csrfToken: string;
  readonly nowMs: number;
  /** The table's name for the session (the hash of its id): a password change keeps this one session open. */
  readonly sessionIdHash?: string;
}

/** What a GET renders: the body inside the console's layout. */
export interface PageView {
  readonly title: string;
  readonly body: Html;
  /** A page about something that does not exist still renders in the layout, with 404; otherwise 200. */
  readonly status?: 404;
}

/** What a form post leads to: back to a page (with a notice, carried in the session), or the same page again with errors shown inline. */
export type ActionOutcome =
  | { readonly kind: 'redirect'; readonly location: string; readonly notice?: string }
  | { readonly kind: 'render'; readonly status: 400 | 409 | 422 | 429; readonly view: PageView }
  /**
   * A success shown in the answer to the post itself, with 200, rather than after a redirect: what is shown once and
   * must never travel in a URL, such as a new key's plaintext or a one-time password. Reloading does not show it again.
   */
  | { readonly kind: 'show'; readonly view: PageView };

export interface PageAction {
  /** The role a user needs to run it (`any`: every signed-in user); the router refuses others with 403, whatever the form says. */
  readonly role: ConsoleRole | 'any';
  /** The workspace feature the action's work belongs to: refused with 403 while the feature is off, as the API does. */
  readonly feature?: Feature;
  run(ctx: ConsoleContext, form: Readonly<Record<string, string>>): Promise<ActionOutcome>;
}

export interface ConsolePage {
  /** API Gateway path syntax under /console, e.g. /console/recommendations/{sku}. */
  readonly path: string;
  /** The label in the navigation, when the page has an entry there. */
  readonly nav?: string;
  read(ctx: ConsoleContext): Promise<PageView>;
  /** Form posts to the page's path, chosen by the form's `_action` field. */
  readonly actions?: Readonly<Record<string, PageAction>>;
}
