#!/usr/bin/env node
// The packaged `pricing-connector` command: refuses a Node.js older than the package's engines with exit code 1, then runs the connector command.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeRefusal } from './node-version.ts';

/** The package's `engines.node`, from the nearest package.json of the client above this file (source or dist). */
function enginesOfPackage(): string | undefined {
  let folder = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; engines?: { node?: string } };
      if (manifest.name === '@pricing-service/client') return manifest.engines?.node;
    } catch {
      // No package.json here: look further up.
    }
    folder = dirname(folder);
  }
  return undefined;
}

// Checked before the command is loaded: on an older Node.js its modules may not even load, or load and do nothing.
const refusal = nodeRefusal(process.version, enginesOfPackage());
if (refusal) {
  console.error(refusal);
  process.exitCode = 1;
} else {
  const { connectorCommand } = await import('./cli.ts');
  process.exitCode = await connectorCommand(process.argv.slice(2));
}
