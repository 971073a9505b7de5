import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#lib/stack/project.ts';
import { compareWithRelease, type ContractDocument } from './compatibility.ts';
import { checkAgainstReleases } from './release.ts';

const load = (file: string) => JSON.parse(readFileSync(join(projectRoot, file), 'utf8')) as ContractDocument;
const released = load('openapi/released/api-v1.json');
const overview = load('openapi/released/overview-v1.json');

type Node = Record<string, unknown>;

/** The object at a slash-separated path of a document. */
function at(document: ContractDocument, path: string): Node {
  return path.split('/').reduce<Node>((node, key) => node[key] as Node, document);
}

/** A copy of a released document with one change made to it, and its version set. */
function changed(document: ContractDocument, version: string, change: (copy: ContractDocument) => void): ContractDocument {
  const copy = structuredClone(document);
  change(copy);
  at(copy, 'info').version = version;
  return copy;
}

describe('the contract documents against their releases', () => {
  it('finds today’s generated documents compatible with the released ones', () => {
    for (const { file, result } of checkAgainstReleases()) expect(result.problems, file).toEqual([]);
  });

  it('refuses an answer that loses a field, under the released major version', () => {
    const broken = changed(released, '1.1.0', (copy) => {
      delete at(copy, 'components/schemas/OpenedBatch/properties').batchId;
      at(copy, 'components/schemas/OpenedBatch').required = ['connectorId'];
    });
    const result = compareWithRelease(released, broken);
    expect(result.breaking.map((change) => change.path)).toContain(
      'paths//api/v1/ingest/batches/post/responses/201/content/application/json/schema/properties/batchId',
    );
    expect(result.problems[0]).toMatch(/breaking change\(s\) under the released major version 1/);
  });

  it('refuses a request that now requires what it could leave out, and an operation removed', () => {
    const required = changed(released, '1.0.1', (copy) =>
      (at(copy, 'components/schemas/PriceRequestLine').required as string[]).push('customerExternalId'),
    );
    expect(compareWithRelease(released, required).problems).not.toEqual([]);
    const removed = compareWithRelease(
      overview,
      changed(overview, '1.2.0', (copy) => delete at(copy, 'paths')['/v1/prices/{sku}/approvals']),
    );
    expect(removed.breaking).toContainEqual({ action: 'remove', path: 'paths//v1/prices/{sku}/approvals/get' });
    expect(removed.problems).not.toEqual([]);
  });

  it('lets the same breaking change ship under a new major version', () => {
    const next = changed(released, '2.0.0', (copy) => delete at(copy, 'components/schemas/OpenedBatch/properties').batchId);
    const result = compareWithRelease(released, next);
    expect(result.breaking.length).toBeGreaterThan(0);
    expect(result.problems).toEqual([]);
  });

  it('takes additive changes within the version: a new answer field, a new optional input, a new operation', () => {
    const added = changed(released, '1.1.0', (copy) => {
      at(copy, 'components/schemas/OpenedBatch/properties').openedAt = { type: 'string' };
      at(copy, 'components/schemas/PriceRequestLine/properties').note = { type: 'string' };
      at(copy, 'paths')['/api/v1/ping'] = { get: { responses: { '200': { description: 'Alive.' } } } };
    });
    expect(compareWithRelease(released, added)).toMatchObject({ breaking: [], problems: [] });
  });

  it('refuses a version older than the released one', () => {
    const older = changed(released, '0.9.0', () => undefined);
    expect(compareWithRelease(released, older).problems).toEqual(['version 0.9.0 is older than the released 1.0.0']);
  });
});
