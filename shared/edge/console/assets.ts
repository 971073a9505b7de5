// The console's static files: read once per instance, named by a hash of their content so that browsers keep them for a year.
import { createHash } from 'node:crypto';
import { readRouteFile } from '#edge/reference/assets.ts';

export interface ConsoleAsset {
  readonly name: string;
  readonly contentType: string;
  readonly bytes: Buffer;
}

let assets: Map<string, ConsoleAsset> | undefined;

function hashedName(base: string, extension: string, bytes: Buffer): string {
  return `${base}.${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.${extension}`;
}

/** Every asset by its hashed name, e.g. `console.3f2a….css`. */
export function consoleAssets(): Map<string, ConsoleAsset> {
  if (!assets) {
    const css = readRouteFile('console/console.css', 'shared/edge/console/console.css');
    const name = hashedName('console', 'css', css);
    assets = new Map([[name, { name, contentType: 'text/css; charset=utf-8', bytes: css }]]);
  }
  return assets;
}

/** The stylesheet's address, as pages link it. */
export function stylesheetPath(): string {
  const [name] = consoleAssets().keys();
  return `/console/assets/${name}`;
}
