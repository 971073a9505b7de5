// Where the project lives on disk: route-table entries and cdk.json are resolved from here, whatever the working directory.
import { fileURLToPath } from 'node:url';

/** With a trailing slash, so that `${projectRoot}${entry}` is a path. */
export const projectRoot = fileURLToPath(new URL('../', import.meta.url));
