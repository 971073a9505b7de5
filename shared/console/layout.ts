// The console's page frame: landmarks, the skip link, the navigation built from the pages, who is signed in, the sign-out form and the notice.
import { stylesheetPath } from './assets.ts';
import { type Html, html } from './html.ts';
import type { ConsoleContext, ConsolePage, PageView } from './page.ts';

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

/** Navigation entries are pages with a `nav` label and no path parameter. */
function navigation(pages: readonly ConsolePage[], currentPath: string): Html {
  const entries = pages.filter((page) => page.nav && !page.path.includes('{'));
  return html`<nav class="site-nav" aria-label="Console">
    <ul>
      ${entries.map(
        (page) =>
          html`<li><a href="${page.path}" ${isCurrent(page.path, currentPath) ? html` aria-current="page"` : ''}>${page.nav}</a></li>`,
      )}
    </ul>
  </nav>`;
}

export interface LayoutInput {
  readonly ctx: ConsoleContext;
  readonly pages: readonly ConsolePage[];
  readonly currentPath: string;
  readonly view: PageView;
  /** From `?notice=`: what the last form did, said once after its redirect. */
  readonly notice?: string;
}

export function layout({ ctx, pages, currentPath, view, notice }: LayoutInput): Html {
  const header = html`<header class="site-header">
      <a class="brand" href="/console">Pricing console</a>
      <div class="who">
        Signed in as <strong>${ctx.user.email}</strong> (${ctx.user.roles.join(', ')})
        <form class="inline" method="post" action="/console/sign-out">
          <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
          <button type="submit" class="secondary">Sign out</button>
        </form>
      </div>
    </header>
    ${navigation(pages, currentPath)}`;
  const main = html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${view.body}`;
  return documentFrame(view.title, header, main);
}
