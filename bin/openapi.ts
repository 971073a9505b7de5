// `npm run openapi`: writes the contract documents of both surfaces, generated from the route table and the schemas.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { projectRoot } from '#lib/stack/project.ts';
import type { Surface } from '#platform/errors.ts';
import { buildDocument, documentText } from '#edge/openapi/document.ts';
import { surfaceDocs } from '#edge/openapi/surfaces.ts';

for (const surface of Object.keys(surfaceDocs) as Surface[]) {
  const path = join(projectRoot, surfaceDocs[surface].file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, documentText(buildDocument(surface)));
  console.log(`wrote ${surfaceDocs[surface].file}`);
}
