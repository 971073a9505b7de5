// The console's page frame: landmarks, the skip link, the navigation, who is signed in, the sign-out form and the notice.
import { stylesheetPath } from './assets.ts';
import { type Html, html } from './html.ts';
import { consoleNavigation, type NavigationEntry } from './navigation.ts';
import type { ConsoleContext, PageView } from './page.ts';

/** A whole document around a body: the sign-in page uses it alone; signed-in pages through `layout`. */
export function documentFrame(title: string, header: Html, main: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Pricing console</title>
        <link rel="stylesheet" href="${stylesheetPath()}" />
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to main content</a>
        ${header}
        <main id="main" tabindex="-1">${main}</main>
      </body>
    </html> `;
}

/** Whether the navigation entry is the page being shown, or the page is under it. */
function isCurrent(entry: string, current: string): boolean {
  return entry === '/console' ? current === '/console' : current === entry || current.startsWith(`${entry}/`);
}

function navigation(entries: readonly NavigationEntry[], currentPath: string): Html {
  return html`<nav class="site-nav" aria-label="Console">
    <ul>
      ${entries.map(
        (entry) =>
          html`<li><a href="${entry.path}" ${isCurrent(entry.path, currentPath) ? html`aria-current="page"` : ''}>${entry.label}</a></li>`,
      )}
    </ul>
  </nav>`;
}

export interface LayoutInput {
  readonly ctx: ConsoleContext;
  readonly currentPath: string;
  readonly view: PageView;
  /** From the session: what the last form did, said once after its redirect. */
  readonly notice?: string;
}

export function layout({ ctx, currentPath, view, notice }: LayoutInput): Html {
  const header = html`<header class="site-header">
      <a class="brand" href="/console">Pricing console</a>
      <div class="who">
        Signed in as <strong>${ctx.user.email}</strong> (${ctx.user.roles.join(', ')})
        <a href="/console/settings/password">Password</a>
        <form class="inline" method="post" action="/console/sign-out">
          <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
          <button type="submit" class="secondary">Sign out</button>
        </form>
      </div>
    </header>
    ${navigation(consoleNavigation, currentPath)}`;
  const main = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${view.body}`;
  return documentFrame(view.title, header, main);
}
