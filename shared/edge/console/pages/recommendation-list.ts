// The console's recommendations list: every product's recommended price, expected impact and approval state, filtered, searched, sorted, paged and selected for bulk approval.
import {
  CATALOGUE_PAGE_SIZE,
  type CatalogueQuery,
  type CataloguePage,
  type CatalogueRow,
  catalogueSorts,
  readCatalogueQuery,
} from '#shared/recommendations/catalogue.ts';
import { readCataloguePage, type RowFilter } from '#shared/recommendations/listing-pages.ts';
import { readSkuApprovals, type SkuApproval, type SkuApprovalState, skuApprovalStates } from '#shared/approvals/sku-states.ts';
import { MAX_BULK_SKUS } from '#shared/approvals/bulk.ts';
import { money, signedPct, withQuery } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageView } from '#edge/console/page.ts';
import { bulkActions, expectedImpact } from './bulk-approval.ts';
import { LIST_PATH, listAddressQuery, productPath } from './recommendation-paths.ts';

export { LIST_PATH, productPath };

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

/** Every sort the list may offer; the select offers those the catalogue reads (`catalogueSorts`). */
const sortLabels: Readonly<Record<string, string>> = {
  sku: 'SKU',
  'change-asc': 'Change, lowest first',
  'change-desc': 'Change, highest first',
  'size-desc': 'Largest change first',
  'impact-desc': 'Largest expected impact first',
};

/** The one-click questions a pricing manager asks of the list: what moved most, and what is worth most. */
const quickSorts = [
  ['size-desc', 'Largest change first'],
  ['impact-desc', 'Largest expected impact first'],
] as const;

/** Who may select rows for bulk approval, and the token the selection's form carries. */
export interface ListSelection {
  readonly canApprove: boolean;
  readonly csrfToken: string;
}

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
        ${catalogueSorts.map((value) => html`<option value="${value}" ${value === query.sort ? html` selected` : ''}>${sortLabels[value] ?? value}</option>`)}
      </select>
    </div>
    <button type="submit">Apply</button>
  </form>`;
}

/** DynamoDB pages forward: the next page from where this one ended, and the first page again. */
function pagination(page: CataloguePage, query: URLSearchParams): Html {
  if (page.next === undefined && page.shown === 0) return html``;
  return html`<nav class="pagination" aria-label="Pages of recommendations">
    ${page.shown > 0 ? html`<a href="${withQuery(LIST_PATH, query, { after: undefined, select: undefined })}">First page</a>` : ''}
    ${page.next === undefined ? '' : html`<a href="${withQuery(LIST_PATH, query, { after: page.next, select: undefined })}" rel="next">Next page</a>`}
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

/** The recommended price, or what stands in its place: no cost to price from, or data to check first. */
function recommendedText(row: CatalogueRow): Html | string {
  if (row.recommendedPriceCents === undefined) return 'not priced (no cost)';
  // The codes are for a wide screen: on a phone the card keeps to the words, and the product page names each warning.
  if (row.warnings?.length)
    return html`<span class="status status-failed check-data">check the data</span
      ><span class="wide-only"> (${row.warnings.join(', ')})</span>`;
  return money(row.recommendedPriceCents, row.currency);
}

/** The expected margin change per quote: "too thin" for a priced product the win model cannot speak for. */
function impactCell(row: CatalogueRow): Html {
  if (row.warnings?.length) return html`<td class="number impact" data-label="Expected impact / quote">not ranked</td>`;
  const cents = row.expectedMarginChangeCents;
  const text = row.recommendedPriceCents === undefined ? '—' : cents === undefined ? 'too thin' : expectedImpact(cents, row.currency);
  return html`<td class="number impact" data-label="Expected impact / quote">${text}</td>`;
}

/**
 * A row's checkbox for bulk approval: only a priced product can be approved, only by the pricing role, and a product
 * held by data warnings only on its own page, where the confirmation names each warning.
 */
function pickCell(row: CatalogueRow, index: number, pick: Picking): Html {
  if (!pick.selection?.canApprove) return html``;
  if (row.recommendedPriceCents === undefined || row.warnings?.length) return html`<td class="pick" data-label="Select"></td>`;
  const checked = pick.all || pick.picked.has(row.sku);
  return html`<td class="pick" data-label="Select">
    <input type="checkbox" name="pick.${index}" value="${row.sku}" aria-label="${`Select ${row.sku}`}" ${checked ? html` checked` : ''} />
  </td>`;
}

/** The sorts one click away, the current one marked as such. */
function sortLinks(query: ListQuery, search: URLSearchParams): Html {
  const offered = quickSorts.filter(([sort]) => (catalogueSorts as readonly string[]).includes(sort));
  if (offered.length === 0) return html``;
  return html`<p class="sort-links">
    Sort:
    ${offered.map(([sort, label]) =>
      sort === (query.sort as string)
        ? html`<strong aria-current="true">${label}</strong>`
        : html`<a href="${withQuery(LIST_PATH, search, { sort, after: undefined, select: undefined })}">${label}</a>`,
    )}
  </p>`;
}

/** Above the table: how to select the page's rows, and the button that takes the selection to its confirmation. */
function selectionBar(search: URLSearchParams, all: boolean): Html {
  const toggle = all
    ? html`<a href="${withQuery(LIST_PATH, search, { select: undefined })}">Clear selection</a>`
    : html`<a href="${withQuery(LIST_PATH, search, { select: 'all' })}">Select all shown</a>`;
  return html`<div class="bulk-bar">
    <button type="submit">Review selected for approval</button>
    ${toggle}
    <span class="hint">Each selected product is approved at its recommended price, after a confirmation step.</span>
  </div>`;
}

function recommendationsTable(page: CataloguePage, query: ListQuery, approvals: ReadonlyMap<string, SkuApproval>, pick: Picking): Html {
  const sortedBy = sortLabels[query.sort] ?? query.sort;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Recommended prices">
    <table class="data recommendations">
      <caption>
        Recommended prices, sorted by ${query.sort === 'sku' ? 'SKU' : sortedBy.toLowerCase()}
      </caption>
      <thead>
        <tr>
          ${pick.selection?.canApprove ? html`<th scope="col" class="pick">Select</th>` : ''}
          <th scope="col">SKU</th>
          <th scope="col" class="wide-only">Name</th>
          <th scope="col" class="wide-only">Category</th>
          <th scope="col" class="number">Current price</th>
          <th scope="col" class="number">Recommended price</th>
          <th scope="col" class="number">Change</th>
          <th scope="col" class="number">Expected impact / quote</th>
          <th scope="col" class="wide-only">Confidence</th>
          <th scope="col">Approval</th>
        </tr>
      </thead>
      <tbody>
        ${page.rows.map(
          (row, index) =>
            html`<tr>
              ${pickCell(row, index, pick)}
              <th scope="row"><a href="${productPath(row.sku)}">${row.sku}</a></th>
              <td class="wide-only">${row.name ?? '—'}</td>
              <td class="wide-only">${row.category ?? '—'}</td>
              <td class="number" data-label="Current price">${money(row.currentPriceCents, row.currency)}</td>
              <td class="number" data-label="Recommended price">${recommendedText(row)}</td>
              ${changeCell(row.changePct)} ${impactCell(row)}
              <td class="wide-only">${row.confidence ?? '—'}</td>
              ${stateCell(approvals.get(row.sku))}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

interface Picking {
  readonly selection: ListSelection | undefined;
  /** `?select=all`: every priced row of the page starts checked. */
  readonly all: boolean;
  /** `?picked=` once per SKU: the rows a cancelled review step selected start checked again. */
  readonly picked: ReadonlySet<string>;
}

/** The list's body: pure, so that its rows, links and escaping are unit-tested. */
export function catalogueView(
  page: CataloguePage,
  query: ListQuery,
  address: URLSearchParams,
  approvals: ReadonlyMap<string, SkuApproval> = new Map(),
  selection?: ListSelection,
): PageView {
  const search = listAddressQuery(address);
  const picked = new Set(address.getAll('picked').slice(0, MAX_BULK_SKUS));
  const pick: Picking = { selection, all: search.get('select') === 'all', picked };
  const table = page.rows.length === 0 ? html`` : recommendationsTable(page, query, approvals, pick);
  // The table sits inside the selection's form, so that its checkboxes are the form's fields.
  const listed =
    !selection?.canApprove || page.rows.length === 0
      ? table
      : html`<form class="bulk" method="post" action="${LIST_PATH}" aria-label="Select products to approve">
          <input type="hidden" name="_csrf" value="${selection.csrfToken}" />
          <input type="hidden" name="_action" value="review" />
          <input type="hidden" name="back" value="${search.toString()}" />
          ${selectionBar(search, pick.all)} ${table}
        </form>`;
  const body = html`<h1>Recommendations</h1>
    ${filterForm(page, query)}
    <p class="summary">${summary(page, query)}</p>
    ${sortLinks(query, search)} ${listed} ${pagination(page, search)}`;
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
    return catalogueView(page, query, ctx.query, approvals, {
      canApprove: ctx.user.roles.includes('pricing'),
      csrfToken: ctx.csrfToken,
    });
  },
  actions: bulkActions,
};
