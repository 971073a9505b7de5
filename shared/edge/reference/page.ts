// The reference page's HTML: a tab per surface above the Redoc view, and the files it loads from the service itself.
import { docsRoutes } from '#edge/routes/docs.ts';
import { rowOf } from '#edge/routes/rows.ts';
import { referenceAsset } from './assets.ts';

/** Each surface of the API and where its OpenAPI document is served; the page shows one at a time. */
export const referenceSurfaces = [
  { surface: 'api', title: 'Service API', prefix: '/api/v1', document: rowOf(docsRoutes, 'openapiV1').path },
  { surface: 'overview', title: 'Overview', prefix: '/v1', document: rowOf(docsRoutes, 'openapiOverview').path },
] as const;

const escapes: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => escapes[character] ?? character);
}

/**
 * The page, with no inline script or style: `api-reference.js` picks the surface from `?surface=` and hands Redoc the
 * nonce, which it reads from its own script element (browsers hide the attribute from the rest of the page).
 */
export function referencePage(nonce: string): string {
  const pagePath = rowOf(docsRoutes, 'apiReference').path;
  const tabs = referenceSurfaces
    .map(({ surface, title, prefix, document }, index) => {
      const href = index === 0 ? pagePath : `${pagePath}?surface=${surface}`;
      return (
        `<a href="${escapeHtml(href)}" data-surface="${surface}" data-title="${escapeHtml(title)}" ` +
        `data-document="${escapeHtml(document)}">${escapeHtml(title)} <code>${escapeHtml(prefix)}</code></a>`
      );
    })
    .join('\n        ');
  const documents = referenceSurfaces.map(({ document }) => `<a href="${escapeHtml(document)}">${escapeHtml(document)}</a>`).join(' and ');
  const url = (name: string) => escapeHtml(referenceAsset(name).url);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Pricing service API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${url('api-reference.css')}" />
  </head>
  <body>
    <header class="reference-bar">
      <strong>Pricing service API reference</strong>
      <nav aria-label="API surfaces">
        ${tabs}
      </nav>
    </header>
    <main id="reference"></main>
    <noscript><p class="reference-note">The reference needs JavaScript. The OpenAPI documents are at ${documents}.</p></noscript>
    <script src="${url('redoc.standalone.js')}"></script>
    <script src="${url('api-reference.js')}" nonce="${escapeHtml(nonce)}"></script>
  </body>
</html>
`;
}
