// The contract documents against the ones last released: the changes a client written for the release would break on, and whether the version allows them.
import { apiDiff } from 'api-smart-diff';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type ContractDocument = { [key: string]: Json };

/** A change that breaks a client of the released document, where it stands in the document. */
export interface BreakingChange {
  readonly action: string;
  readonly path: string;
}

export interface Compatibility {
  readonly releasedVersion: string;
  readonly version: string;
  readonly breaking: readonly BreakingChange[];
  /** What is wrong, one line each; empty when the document may ship. */
  readonly problems: readonly string[];
}

function pointer(document: Json, reference: string): Json {
  return reference
    .slice(2)
    .split('/')
    .reduce<Json>((node, key) => {
      const name = key.replaceAll('~1', '/').replaceAll('~0', '~');
      return node !== null && typeof node === 'object' && !Array.isArray(node) ? (node[name] ?? null) : null;
    }, document);
}

/**
 * The document with every local `$ref` written out in place, and its components dropped: a change to a shared schema
 * is judged where a request or an answer uses it (a field removed from an answer breaks, from a request does not),
 * which the components alone cannot tell. A schema that refers to itself stops at its second appearance.
 */
export function inlined(document: ContractDocument): ContractDocument {
  const resolve = (node: Json, trail: readonly string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => resolve(item, trail));
    if (node === null || typeof node !== 'object') return node;
    const reference = node.$ref;
    if (typeof reference === 'string' && reference.startsWith('#/')) {
      if (trail.includes(reference)) return { $ref: reference };
      const { $ref: _, ...beside } = node;
      const target = resolve(pointer(document, reference), [...trail, reference]);
      return {
        ...(target !== null && typeof target === 'object' && !Array.isArray(target) ? target : {}),
        ...(resolve(beside, trail) as object),
      };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value, trail)]));
  };
  const { components: _, ...rest } = document;
  return resolve(rest, []) as ContractDocument;
}

function versionOf(document: ContractDocument): string {
  const info = document.info;
  const version = info !== null && typeof info === 'object' && !Array.isArray(info) ? info.version : undefined;
  return typeof version === 'string' ? version : '0.0.0';
}

function parts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
}

/**
 * Compares a document with its last release. A breaking change ships only under a new major version; the version
 * never goes back. What counts as breaking is the checker's classification of each change, in its context (a request
 * or an answer): removing or retyping what an answer carries, requiring what a request could leave out, narrowing
 * what an input takes, removing an operation.
 */
export function compareWithRelease(released: ContractDocument, current: ContractDocument): Compatibility {
  const [releasedVersion, version] = [versionOf(released), versionOf(current)];
  const breaking = apiDiff(inlined(released), inlined(current))
    .filter((change) => change.type === 'breaking')
    .map((change) => ({ action: change.action, path: change.path.join('/') }));
  const [major, minor, patch] = parts(version);
  const [releasedMajor, releasedMinor, releasedPatch] = parts(releasedVersion);
  const problems: string[] = [];
  const older = major - releasedMajor || minor - releasedMinor || patch - releasedPatch;
  if (older < 0) problems.push(`version ${version} is older than the released ${releasedVersion}`);
  if (breaking.length > 0 && major === releasedMajor) {
    problems.push(
      `${breaking.length} breaking change(s) under the released major version ${releasedMajor} (docs/versioning.md):`,
      ...breaking.map((change) => `  ${change.action} ${change.path}`),
    );
  }
  return { releasedVersion, version, breaking, problems };
}
