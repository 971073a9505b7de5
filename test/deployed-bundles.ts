// The function bundles the stack deploys, built by one real synth per version of the sources and shared by every test file that reads them, in this run and the next.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { type FunctionBundle, synthesizeBundles } from '#lib/stack/bundles.ts';
import { projectRoot } from '#lib/stack/project.ts';

const cacheRoot = join(projectRoot, 'node_modules', '.cache', 'pricing-service', 'bundles');
/**
 * What a bundle is built from or copies in: the functions and what they import, the documents and pages they serve,
 * and the lockfile of the packages esbuild inlines. Nothing a test run writes (screenshots, the client's build, the
 * cloud assembly) is among them, so every file of one run finds the same digest.
 */
const SOURCES = ['functions', 'shared', 'lib', 'openapi', 'docs', 'package.json', 'package-lock.json', 'tsconfig.json', 'cdk.json'];
/** A build that holds the lock longer than this died with it: esbuild takes a few minutes on a loaded two-core machine. */
const STALE_LOCK_MS = 15 * 60_000;

/** The sources' digest: any change to one of them makes a new synth; the same sources reuse the last. */
function sourcesDigest(): string {
  const hash = createHash('sha256');
  const add = (path: string) => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) add(join(path, name));
    } else {
      hash.update(relative(projectRoot, path)).update('\0').update(readFileSync(path)).update('\0');
    }
  };
  for (const source of SOURCES) add(join(projectRoot, source));
  return hash.digest('hex').slice(0, 24);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every function's bundle as `cdk deploy` would upload it. The first file to ask builds them under a lock (a
 * directory, which only one process can make); the others wait for it and read its list. A build is moved into place
 * whole, so a reader never sees half of one, and a build that died leaves only a stale lock that the next one breaks.
 */
export async function deployedBundles(): Promise<FunctionBundle[]> {
  const digest = sourcesDigest();
  const entry = join(cacheRoot, digest);
  const list = join(entry, 'bundles.json');
  const lock = join(cacheRoot, `${digest}.lock`);
  mkdirSync(cacheRoot, { recursive: true });
  for (;;) {
    if (existsSync(list)) return readList(entry, list);
    try {
      mkdirSync(lock);
    } catch {
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(500);
      continue;
    }
    try {
      if (existsSync(list)) return readList(entry, list);
      build(digest, entry);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

function build(digest: string, entry: string): void {
  const building = join(cacheRoot, `${digest}.building-${process.pid}`);
  rmSync(building, { recursive: true, force: true });
  const bundles = synthesizeBundles(building).map((bundle) => ({ ...bundle, path: relative(building, bundle.path) }));
  writeFileSync(join(building, 'bundles.json'), JSON.stringify(bundles));
  // Older sources' builds are of no further use: one cloud assembly is kept.
  for (const name of readdirSync(cacheRoot)) {
    if (!name.endsWith('.lock') && join(cacheRoot, name) !== building) rmSync(join(cacheRoot, name), { recursive: true, force: true });
  }
  renameSync(building, entry);
}

function readList(entry: string, list: string): FunctionBundle[] {
  const bundles = JSON.parse(readFileSync(list, 'utf8')) as FunctionBundle[];
  return bundles.map((bundle) => ({ ...bundle, path: join(entry, bundle.path) }));
}
