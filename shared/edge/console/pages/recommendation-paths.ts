// Where the recommendations pages live: the list, and each product's page under it.
export const LIST_PATH = '/console/recommendations';

export function productPath(sku: string): string {
  return `${LIST_PATH}/${encodeURIComponent(sku)}`;
}

/** The list's own query parameters: what a link back to the list keeps of a query string, and nothing else. */
const listParameters = ['category', 'state', 'q', 'sort'] as const;

function keptParameters(query: string | URLSearchParams, names: readonly string[]): URLSearchParams {
  const given = new URLSearchParams(query);
  const kept = new URLSearchParams();
  for (const name of names) {
    const value = given.get(name);
    if (value) kept.set(name, value);
  }
  return kept;
}

/** A link to the list filtered as `query` was: any other parameter is dropped, so the link stays on the list. */
export function listLink(query: string | URLSearchParams): string {
  const text = keptParameters(query, listParameters).toString();
  return text ? `${LIST_PATH}?${text}` : LIST_PATH;
}

/**
 * What the list's own links carry over of its address: its filter, its page and its selection. Anything else in the
 * address (a `?notice=` someone crafted) is never echoed into the page.
 */
export function listAddressQuery(query: URLSearchParams): URLSearchParams {
  return keptParameters(query, [...listParameters, 'after', 'select']);
}
