// The layering of the code: imports run one way (entries → programs → handlers → edge → domain → platform), and no two folders import each other.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';

const aliases: Record<string, string> = { edge: 'shared/edge', platform: 'shared/platform', shared: 'shared', lib: 'lib', test: 'test' };
const specifier = /(?:^|\s)(?:import|export)\s[^;]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function sourceFiles(folder: string): string[] {
  return readdirSync(join(projectRoot, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(projectRoot, join(entry.parentPath, entry.name)));
}

/** The file an import names, relative to the project, or undefined for a package. */
function target(from: string, name: string): string | undefined {
  if (name.startsWith('.')) return normalize(join(dirname(from), name));
  const alias = /^#([a-z]+)\/(.*)$/.exec(name);
  return alias?.[1] && aliases[alias[1]] ? `${aliases[alias[1]]}/${alias[2]}` : undefined;
}

/** The folder a file belongs to, as the map in docs/architecture.md names them. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'shared') {
    if (parts[1] === 'edge' || parts[1] === 'platform') return parts.length > 3 ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
    return parts.slice(0, 2).join('/');
  }
  if (parts[0] === 'lib' || parts[0] === 'client') return parts.slice(0, 2).join('/');
  return parts[0] ?? file;
}

/** Lower floors may be imported by higher ones, never the other way round. */
function floorOf(folder: string): number {
  if (folder.startsWith('shared/platform')) return 0;
  if (folder.startsWith('shared/edge')) return 2;
  if (folder.startsWith('shared/')) return 1;
  if (folder === 'functions') return 3;
  if (folder.startsWith('lib/') || folder.startsWith('client/')) return 4;
  return 5;
}

/**
 * What each entry and program may import beyond its own folder, as the map in docs/architecture.md says: `domain` is any
 * of shared/ but the edge and the platform; any other entry is a folder or file the import must fall in.
 */
const reach: Readonly<Record<string, readonly string[]>> = {
  bin: ['lib/', 'client/src/', 'edge', 'platform'],
  'lib/stack': ['edge', 'domain', 'platform'],
  'lib/local': ['lib/stack/project.ts', 'edge', 'domain', 'platform'],
  'lib/admin': ['lib/local/', 'lib/stack/project.ts', 'edge', 'domain', 'platform'],
  'lib/bench': ['lib/local/', 'client/src/', 'lib/stack/bundles.ts', 'lib/stack/project.ts', 'edge', 'domain', 'platform'],
  'lib/contract': ['lib/stack/project.ts', 'edge', 'platform'],
  'client/src': ['shared/records/'],
};

/** Whether `to` is within what `allowed` names. */
function reaches(allowed: readonly string[], to: string): boolean {
  const layer = to.startsWith('shared/edge/')
    ? 'edge'
    : to.startsWith('shared/platform/')
      ? 'platform'
      : to.startsWith('shared/')
        ? 'domain'
        : '';
  return allowed.some((entry) => entry === layer || to === entry || (entry.endsWith('/') && to.startsWith(entry)));
}

const edges = new Map<string, Set<string>>();
const floorBreaches: string[] = [];
const reachBreaches: string[] = [];
for (const file of ['shared', 'functions', 'lib', 'bin', 'client/src'].flatMap(sourceFiles)) {
  const text = readFileSync(join(projectRoot, file), 'utf8');
  for (const match of text.matchAll(specifier)) {
    const name = match[1] ?? match[2] ?? '';
    const to = target(file, name);
    if (!to || to.startsWith('openapi/')) continue;
    const [a, b] = [folderOf(file), folderOf(to)];
    if (a === b) continue;
    if (!edges.has(a)) edges.set(a, new Set());
    edges.get(a)?.add(b);
    if (floorOf(b) > floorOf(a)) floorBreaches.push(`${file} imports ${name}`);
    const allowed = reach[a];
    if (allowed && !reaches(allowed, to)) reachBreaches.push(`${file} imports ${name}`);
  }
}

/** Folders that reach each other through imports (strongly connected components of more than one folder). */
function circles(): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let popped: string | undefined;
    do {
      popped = stack.pop();
      if (popped) component.push(popped);
    } while (popped && popped !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The map's domain rows, top to bottom, each the folders it names: a row imports only the rows below it. */
function domainRows(): string[][] {
  const rows: string[][] = [];
  let inDomain = false;
  for (const line of readFileSync(join(projectRoot, 'docs/architecture.md'), 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    if (!line.startsWith('|') || cells.length < 5) continue;
    if (cells[1]) inDomain = cells[1] === 'domain';
    if (inDomain) rows.push([...(cells[2] ?? '').matchAll(/`(shared\/[a-z-]+)\/`/g)].map((match) => match[1] ?? ''));
  }
  return rows;
}

/** Each import between two domain folders whose row is not below the importer's. */
function rowBreaches(rows: readonly string[][]): string[] {
  const rowOf = new Map(rows.flatMap((folders, row) => folders.map((folder) => [folder, row] as const)));
  return [...edges].flatMap(([from, targets]) =>
    [...targets].flatMap((to) => {
      const [a, b] = [rowOf.get(from), rowOf.get(to)];
      return a !== undefined && b !== undefined && b < a ? [`${from} imports ${to}, a row above it`] : [];
    }),
  );
}

describe('the layering of the code', () => {
  it("orders the map's domain rows as the imports run: each imports only the rows below it", () => {
    const rows = domainRows();
    expect(rows.length).toBeGreaterThan(5);
    expect(rowBreaches(rows)).toEqual([]);
  });

  it('names every domain folder on one row of the map', () => {
    const domain = [...new Set(sourceFiles('shared').map(folderOf))].filter((folder) => floorOf(folder) === 1).sort();
    expect(domainRows().flat().sort()).toEqual(domain);
  });

  it('runs imports one way: entries, programs, handlers, edge, domain, platform, never back up', () => {
    expect(floorBreaches).toEqual([]);
  });

  it('keeps each entry, program and the client to the folders the map lets it import', () => {
    expect(reachBreaches).toEqual([]);
  });

  it('has no two folders that import each other, directly or round a circle', () => {
    expect(circles()).toEqual([]);
  });

  it('sees the folders it checks', () => {
    expect([...edges.keys()]).toEqual(
      expect.arrayContaining(['functions', 'shared/edge/http', 'shared/prices', 'lib/local', 'lib/bench', 'client/src']),
    );
  });
});
