// The OpenAPI 3.1 documents of the two surfaces, built from the route table (paths, methods, keys) and the operations' metadata.
import type { Surface } from '#platform/errors.ts';
import { routes } from '#edge/routes.ts';
import { documentComponents, usedSecuritySchemes } from './components.ts';
import { unknownRoute } from './errors.ts';
import { webhooksObject } from './events.ts';
import type { RouteRow } from './keys.ts';
import { OPENAPI_VERSION, type OperationDoc, operations, undocumentedRoutes } from './operations.ts';
import { operationObject } from './paths.ts';
import { surfaceDocs, tagDescriptions } from './surfaces.ts';


/**
 * The document of one surface: every route of the table on it, except those `undocumentedRoutes` leaves out. A route
 * with no metadata in `operations` is an error, so that a new route cannot go undocumented unnoticed.
 */
export function buildDocument(surface: Surface, table: readonly RouteRow[] = routes): Record<string, unknown> {
  const documented: Record<string, OperationDoc> = operations;
  const paths: Record<string, Record<string, unknown>> = {};
  const tags: string[] = [];
  for (const route of table) {
    if ((route.surface ?? 'v1') !== surface || route.id in undocumentedRoutes) continue;
    const doc = documented[route.id];
    if (!doc) {
      throw new Error(
        `route ${route.id} (${route.method} ${route.path}) has no operation in shared/edge/openapi/operations/: describe it in its area's file, ` +
          'or list it in undocumentedRoutes with the reason',
      );
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationObject(route, doc, surface) };
    if (!tags.includes(doc.tag)) tags.push(doc.tag);
  }
  const { title, description, version } = surfaceDocs[surface];
  const unknown = unknownRoute(surface);
  const webhooks = webhooksObject();
  tags.push('Webhook events');
  const components = documentComponents([paths, unknown, webhooks]);
  const usedSchemes = usedSecuritySchemes(paths);
  return {
    openapi: OPENAPI_VERSION,
    info: { title, version, description },
    servers: [{ url: '/', description: 'The host the API is served on: API Gateway’s URL (the ApiUrl output), or the local gateway.' }],
    tags: tags.map((name) => {
      const description = tagDescriptions[name];
      if (!description) throw new Error(`the tag ${name} has no description`);
      return { name, description };
    }),
    paths,
    webhooks,
    'x-unknown-route': unknown,
    components: { ...components, ...(Object.keys(usedSchemes).length > 0 ? { securitySchemes: usedSchemes } : {}) },
  };
}

/** As the files hold it: 2-space JSON and a final newline. */
export function documentText(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
