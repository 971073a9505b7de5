// Where the recommendations pages live: the list, and each product's page under it.
export const LIST_PATH = '/console/recommendations';

export function productPath(sku: string): string {
  return `${LIST_PATH}/${encodeURIComponent(sku)}`;
}

/** The list's own query parameters: what a link back to the list keeps of a query string, and nothing else. */
const listParameters = ['category', 'state', 'q', 'sort'] as const;

/** A link to the list filtered as `query` was: any other parameter is dropped, so the link stays on the list. */
export function listLink(query: string | URLSearchParams): string {
  const given = new URLSearchParams(query);
  const kept = new URLSearchParams();
  for (const name of listParameters) {
    const value = given.get(name);
    if (value) kept.set(name, value);
  }
  const text = kept.toString();
  return text ? `${LIST_PATH}?${text}` : LIST_PATH;
}
