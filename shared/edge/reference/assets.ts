// The reference page's files as /docs/{asset} serves them: read once per instance, named by their content's hash, compressed on demand.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
// The docs' rows alone: the console's functions read their files through this module too.
import { docsRoutes } from '#edge/routes/docs.ts';
import { rowOf } from '#edge/routes/rows.ts';

/** Where this module runs from: the function's package when bundled (everything is one index.mjs), else shared/edge/reference/. */
const here = import.meta.dirname;
const projectRoot = resolve(here, '../../..');

/**
 * One of a route's `files`. The stack copies each into the function's package under its own path, beside the bundle;
 * run from source (local mode, tests) there is no copy, and the file is read where the project keeps it.
 */
export function readRouteFile(packagePath: string, projectPath: string): Buffer {
  const packaged = join(here, packagePath);
  return readFileSync(existsSync(packaged) ? packaged : join(projectRoot, projectPath));
}

/**
 * The one address outside the service that Redoc's bundle loads by itself: its footer's logo, fetched from Redocly's CDN
 * whatever the options. It is pointed at an empty data URL instead, which the logo's own error handler then hides, so
 * that the page loads nothing from anywhere else and its policy needs no exception.
 */
export const REDOC_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

function served(name: string, bytes: Buffer): Buffer {
  return name === 'redoc.standalone.js' ? Buffer.from(bytes.toString('utf8').replaceAll(REDOC_LOGO_URL, 'data:,')) : bytes;
}

const contentTypes: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export type Encoding = 'br' | 'gzip';

export interface Asset {
  /** As the URL names it: `redoc.standalone.js`. */
  readonly name: string;
  readonly contentType: string;
  readonly bytes: Buffer;
  /** The first 16 hex digits of the content's SHA-256: the page asks for `?v=<version>`, which changes with the content. */
  readonly version: string;
  /** The address the page loads it from. */
  readonly url: string;
  /** The bytes in the encoding, compressed on the first call and kept. */
  encoded(encoding: Encoding): Buffer;
}

function asset(name: string, bytes: Buffer): Asset {
  const contentType = contentTypes[extname(name)];
  if (!contentType) throw new Error(`no content type for ${name}`);
  const version = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const encodings = new Map<Encoding, Buffer>();
  return {
    name,
    contentType,
    bytes,
    version,
    url: `${rowOf(docsRoutes, 'apiReferenceAsset').path.replace('{asset}', encodeURIComponent(name))}?v=${version}`,
    encoded(encoding) {
      let body = encodings.get(encoding);
      if (!body) {
        // Brotli at quality 5 and gzip at its default: within a few times the best ratio, at a fraction of the CPU.
        body =
          encoding === 'br'
            ? brotliCompressSync(bytes, {
                params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
              })
            : gzipSync(bytes);
        encodings.set(encoding, body);
      }
      return body;
    },
  };
}

let assets: ReadonlyMap<string, Asset> | undefined;

/**
 * Every file of the reference, by the name the URL gives it. Read on first use rather than at load, so that a file
 * missing from the package is a fault answered in the envelope, not a function that cannot start.
 */
export function referenceAssets(): ReadonlyMap<string, Asset> {
  if (!assets) {
    const files = rowOf(docsRoutes, 'apiReferenceAsset').files ?? {};
    assets = new Map(
      Object.entries(files).map(([packagePath, projectPath]) => {
        const name = basename(packagePath);
        return [name, asset(name, served(name, readRouteFile(packagePath, projectPath)))];
      }),
    );
  }
  return assets;
}

export function referenceAsset(name: string): Asset {
  const found = referenceAssets().get(name);
  if (!found) throw new Error(`no reference asset ${name}`);
  return found;
}

/**
 * The encoding to send for an Accept-Encoding header: brotli, else gzip, else none. Weights other than zero are not
 * ranked: every browser that sends both prefers brotli.
 */
export function preferredEncoding(acceptEncoding: string | undefined): Encoding | undefined {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const weight = parameters.find((parameter) => parameter.startsWith('q='));
    if (coding !== '' && !(weight !== undefined && Number(weight.slice(2)) === 0)) accepted.add(coding);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return undefined;
}
