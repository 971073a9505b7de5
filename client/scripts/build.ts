// Builds the package: ESM JavaScript and declarations in dist/ (tsc, tsconfig.build.json), with the generated API types beside them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { surfaces, typesPath } from './generate.ts';

const clientRoot = fileURLToPath(new URL('../', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
/** Where tsc puts src/: its root is the repository, as the connector kit compiles the service's record schemas too. */
const distSource = fileURLToPath(new URL('../dist/client/src/', import.meta.url));

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: clientRoot, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
// tsc emits no copy of a declaration file it reads; the generated types are such files.
for (const surface of surfaces) copyFileSync(typesPath(surface), `${distSource}${surface}.d.ts`);
