// The console's recommendations list: every product's recommended price and approval state, filtered, searched, sorted and paged.
import { CATALOGUE_PAGE_SIZE, type CatalogueQuery, type CataloguePage, readCatalogueQuery } from '#shared/recommendations/catalogue.ts';
import { readCataloguePage, type RowFilter } from '#shared/recommendations/listing-pages.ts';
import { readSkuApprovals, type SkuApproval, type SkuApprovalState, skuApprovalStates } from '#shared/approvals/sku-states.ts';
import { money, signedPct, withQuery } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageView } from '#edge/console/page.ts';

export const LIST_PATH = '/console/recommendations';

export function productPath(sku: string): string {
  return `${LIST_PATH}/${encodeURIComponent(sku)}`;
}

/** The list's query: the catalogue's, and the approval state the list filters by, which the catalogue's rows do not hold. */
type ListQuery = CatalogueQuery & { readonly state?: SkuApprovalState };

function readListQuery(params: URLSearchParams): ListQuery {
  const state = params.get('state');
  const known = (skuApprovalStates as readonly (string | null)[]).includes(state);
  return { ...readCatalogueQuery(params), ...(known ? { state: state as SkuApprovalState } : {}) };
}

/** How the list names each approval state, in the filter and in its column. */
const stateLabels: Record<SkuApprovalState, string> = {
  unreviewed: 'Not approved yet',
  waiting: 'Waiting for a second approver',
  approved: 'Approved (no connector writes back)',
  pending: 'Write-back pending',
  failed: 'Write-back failed',
  applied: 'Applied',
};

const sortLabels: Record<CatalogueQuery['sort'], string> = {
  sku: 'SKU',
  'change-asc': 'Change, lowest first',
  'change-desc': 'Change, highest first',
  'size-desc': 'Largest change first',
  'impact-desc': 'Largest expected impact first',
};

function filterForm(page: CataloguePage, query: ListQuery): Html {
  return html`<form class="filters" method="get" action="${LIST_PATH}" role="search" aria-label="Filter recommendations">
    <div class="field">
      <label for="filter-category">Category</label>
      <select id="filter-category" name="category">
        <option value="">All categories</option>
        ${page.categories.map((category) => html`<option value="${category}" ${category === query.category ? html` selected` : ''}>${category}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="filter-state">Approval state</label>
      <select id="filter-state" name="state">
        <option value="">All states</option>
        ${skuApprovalStates.map((state) => html`<option value="${state}" ${state === query.state ? html` selected` : ''}>${stateLabels[state]}</option>`)}
      </select>
    </div>
    <div class="field">
      <label for="filter-search">Search SKU or name</label>
      <input id="filter-search" name="q" type="search" value="${query.search ?? ''}" />
    </div>
    <div class="field">
      <label for="filter-sort">Sort by</label>
      <select id="filter-sort" name="sort">
        ${Object.entries(sortLabels).map(([value, label]) => html`<option value="${value}" ${value === query.sort ? html` selected` : ''}>${label}</option>`)}
      </select>
    </div>
    <button type="submit">Apply</button>
  </form>`;
}

/** DynamoDB pages forward: the next page from where this one ended, and the first page again. */
function pagination(page: CataloguePage, query: URLSearchParams): Html {
  if (page.next === undefined && page.shown === 0) return html``;
  return html`<nav class="pagination" aria-label="Pages of recommendations">
    ${page.shown > 0 ? html`<a href="${withQuery(LIST_PATH, query, { after: undefined })}">First page</a>` : ''}
    ${page.next === undefined ? '' : html`<a href="${withQuery(LIST_PATH, query, { after: page.next })}" rel="next">Next page</a>`}
  </nav>`;
}

function summary(page: CataloguePage, query: ListQuery): string {
  const filtered = query.category !== undefined || query.search !== undefined || query.state !== undefined;
  if (page.rows.length === 0) {
    if (page.next !== undefined) return 'No match in the products searched so far: search on with the next page.';
    if (page.shown > 0) return 'No more products.';
    return filtered
      ? 'No product matches the filter.'
      : 'No recommendations yet: they appear once a connector has synced products and their batch has drained.';
  }
  return `${filtered ? 'Matching products' : 'Products'} ${page.shown + 1}–${page.shown + page.rows.length}.`;
}

function changeCell(value: number | null): Html {
  const direction = value === null || value === 0 ? 'flat' : value > 0 ? 'up' : 'down';
  return html`<td class="number change-${direction}" data-label="Change">${signedPct(value)}</td>`;
}

function stateCell(approval: SkuApproval | undefined): Html {
  if (!approval) return html`<td data-label="Approval">—</td>`;
  return html`<td class="status status-${approval.state}" data-label="Approval">${stateLabels[approval.state]}</td>`;
}

/** The list's body: pure, so that its rows, links and escaping are unit-tested. */
export function catalogueView(
  page: CataloguePage,
  query: ListQuery,
  search: URLSearchParams,
  approvals: ReadonlyMap<string, SkuApproval> = new Map(),
): PageView {
  const body = html`<h1>Recommendations</h1>
    ${filterForm(page, query)}
    <p class="summary">${summary(page, query)}</p>
    ${
      page.rows.length === 0
        ? ''
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Recommended prices">
            <table class="data recommendations">
              <caption>
                Recommended prices, sorted by ${query.sort === 'sku' ? 'SKU' : sortLabels[query.sort].toLowerCase()}
              </caption>
              <thead>
                <tr>
                  <th scope="col">SKU</th>
                  <th scope="col" class="wide-only">Name</th>
                  <th scope="col" class="wide-only">Category</th>
                  <th scope="col" class="number">Current price</th>
                  <th scope="col" class="number">Recommended price</th>
                  <th scope="col" class="number">Change</th>
                  <th scope="col" class="wide-only">Confidence</th>
                  <th scope="col">Approval</th>
                </tr>
              </thead>
              <tbody>
                ${page.rows.map(
                  (row) =>
                    html`<tr>
                      <th scope="row"><a href="${productPath(row.sku)}">${row.sku}</a></th>
                      <td class="wide-only">${row.name ?? '—'}</td>
                      <td class="wide-only">${row.category ?? '—'}</td>
                      <td class="number" data-label="Current price">${money(row.currentPriceCents, row.currency)}</td>
                      <td class="number" data-label="Recommended price">
                        ${row.recommendedPriceCents === undefined ? 'not priced (no cost)' : money(row.recommendedPriceCents, row.currency)}
                      </td>
                      ${changeCell(row.changePct)}
                      <td class="wide-only">${row.confidence ?? '—'}</td>
                      ${stateCell(approvals.get(row.sku))}
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    ${pagination(page, search)}`;
  return { title: 'Recommendations', body };
}

export const recommendationsPage: ConsolePage = {
  path: LIST_PATH,
  nav: 'Recommendations',
  async read(ctx) {
    const query = readListQuery(ctx.query);
    const { workspaceId } = ctx.user;
    // Each SKU's state is read once, whether the filter asked for it or the page's column does.
    const approvals = new Map<string, SkuApproval>();
    const learn = async (skus: readonly string[]) => {
      const unknown = skus.filter((sku) => !approvals.has(sku));
      for (const [sku, approval] of await readSkuApprovals(workspaceId, unknown, ctx.nowMs)) approvals.set(sku, approval);
    };
    const inState = query.state;
    const keep: RowFilter | undefined =
      inState &&
      (async (rows) => {
        await learn(rows.map((row) => row.sku));
        return rows.filter((row) => approvals.get(row.sku)?.state === inState);
      });
    const page = await readCataloguePage(workspaceId, query, CATALOGUE_PAGE_SIZE, keep);
    await learn(page.rows.map((row) => row.sku));
    return catalogueView(page, query, ctx.query, approvals);
  },
};
