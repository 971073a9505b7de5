// The contract between the console's router and its pages: what a page reads, what it renders, and what its forms may change.
import * as v from 'valibot';
import type { Feature } from '#shared/workspaces/schema.ts';
import { type Html, html } from './html.ts';

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
  /** The secret a form's redirect left for this page, taken off the session by this view: it is never shown again. */
  readonly reveal?: Reveal;
}

/**
 * A secret a form made or opened, for the page its redirect leads to to show once: a new key, a one-time password,
 * a webhook signing secret. `kind` names the element that shows it, which people and tests copy it from.
 */
export const RevealSchema = v.object({
  kind: v.picklist(['new-key', 'new-password', 'new-secret', 'current-secret']),
  heading: v.string(),
  /** What to do with it, said before it. */
  advice: v.string(),
  secret: v.string(),
});
export type Reveal = v.InferOutput<typeof RevealSchema>;

/** The secret a redirect left for the page, where the page chooses to show it; nothing when there is none. */
export function revealSection(reveal: Reveal | undefined): Html {
  if (!reveal) return html``;
  return html`<section class="notice" aria-labelledby="reveal-heading">
    <h2 id="reveal-heading">${reveal.heading}</h2>
    <p>${reveal.advice}</p>
    <p class="secret" data-testid="${reveal.kind}">${reveal.secret}</p>
  </section>`;
}

/** What a GET renders: the body inside the console's layout. */
export interface PageView {
  readonly title: string;
  readonly body: Html;
  /** A page about something that does not exist still renders in the layout, with 404; otherwise 200. */
  readonly status?: 404;
}

/**
 * What a GET may answer instead of the page's view: a file the browser saves, such as a report as CSV. It carries the
 * same headers as a page (the policy, no-store); only its type and its name differ.
 */
export interface PageDownload {
  /** Letters, digits, dots, dashes and underscores: the name goes into a header as it is. */
  readonly filename: string;
  readonly contentType: 'text/csv; charset=utf-8';
  readonly body: string;
}

/** What a form post leads to: back to a page (with a notice, carried in the session), or the same page again with errors shown inline. */
export type ActionOutcome =
  | {
      readonly kind: 'redirect';
      readonly location: string;
      readonly notice?: string;
      /**
       * A secret for the page at `location` to show once. It never travels in the URL: the session keeps it sealed
       * under a key only the session's cookie gives, until the next view of that page takes it off. A reload of that
       * page shows it no more and posts nothing again.
       */
      readonly reveal?: Reveal;
    }
  | { readonly kind: 'render'; readonly status: 400 | 409 | 422 | 429; readonly view: PageView }
  /**
   * An answer to the post itself, with 200, rather than after a redirect: a step that asks before anything changes
   * (a confirmation), or a result of its own. Never a secret: reloading posts the form again, so a secret made there
   * would be made twice; a secret goes by a redirect's `reveal`.
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
  /**
   * The file a GET's query asks for instead of the view (e.g. `?format=csv`), read before the view; undefined when the
   * query asks for none, or for one it cannot have, which the view then explains.
   */
  download?(ctx: ConsoleContext): Promise<PageDownload | undefined>;
  /** Form posts to the page's path, chosen by the form's `_action` field. */
  readonly actions?: Readonly<Record<string, PageAction>>;
}
