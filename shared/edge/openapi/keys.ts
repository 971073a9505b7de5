// What a route's key rules come to in a document: the key it needs, its security requirement, and the features it needs.

/** A row of the route table as the builder reads it: rows of open routes may carry no `auth`, or another shape of it. */
export interface RouteRow {
  readonly id: string;
  readonly method: string;
  readonly path: string;
  readonly surface?: string;
  readonly auth?: unknown;
  /** Set where the route takes an optional Idempotency-Key (the route table's rows say how it is stored). */
  readonly idempotency?: unknown;
}

export interface KeyAuth {
  readonly family: string;
  readonly scopes: readonly string[];
  readonly feature?: string;
  readonly featureOfScope?: Readonly<Record<string, string>>;
}

/** The route's key rules, or undefined for a route open to every caller. */
export function keyAuthOf(route: RouteRow): KeyAuth | undefined {
  const { auth } = route;
  if (typeof auth === 'object' && auth !== null && 'family' in auth && typeof auth.family === 'string') return auth as KeyAuth;
  return undefined;
}

/** Markdown code: a key, a scope, an error code. */
export function code(text: string): string {
  return `\`${text}\``;
}

export function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** The features the route needs: what the key's description says, and what its 403 says. */
export function featureNeeds(auth: KeyAuth): Array<{ need: string; lack: string }> {
  const needs: Array<{ need: string; lack: string }> = [];
  if (auth.feature) {
    needs.push({
      need: `the workspace needs the ${code(auth.feature)} feature`,
      lack: `The workspace lacks the ${code(auth.feature)} feature.`,
    });
  }
  for (const [scope, feature] of Object.entries(auth.featureOfScope ?? {})) {
    needs.push({
      need: `a key granted it by ${code(scope)} alone needs the workspace's ${code(feature)} feature`,
      lack: `The key is granted the operation by ${code(scope)} alone, and the workspace lacks the ${code(feature)} feature.`,
    });
  }
  return needs;
}

export function keyWords(auth: KeyAuth | undefined): string {
  if (!auth) return 'Open: no key.';
  const key =
    auth.family === 'svc_live'
      ? `A ${code('svc_live_')} key with the ${orList(auth.scopes.map(code))} scope`
      : `A ${code('pw_live_')} or ${code('pw_test_')} key`;
  return `${[key, ...featureNeeds(auth).map((feature) => feature.need)].join('; ')}.`;
}

export function securityOf(auth: KeyAuth | undefined): Array<Record<string, string[]>> {
  if (!auth) return [];
  const scheme = auth.family === 'svc_live' ? 'serviceKey' : 'overviewKey';
  return auth.scopes.length > 0 ? auth.scopes.map((scope) => ({ [scheme]: [scope] })) : [{ [scheme]: [] }];
}
