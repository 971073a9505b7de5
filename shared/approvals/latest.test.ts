// Unit tests of an approval's turn: its moment follows the approval before it, and its write holds only on the version read.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { nextApprovedAt, takeTurn } from './latest.ts';

describe("an approval's moment", () => {
  const now = new Date('2026-11-24T10:00:00.000Z');

  it('is now for the first approval of a SKU', () => {
    expect(nextApprovedAt(undefined, now)).toBe('2026-11-24T10:00:00.000Z');
  });

  it('is now when the approval before it is older', () => {
    expect(nextApprovedAt({ approvedAt: '2026-11-24T09:59:59.999Z' }, now)).toBe('2026-11-24T10:00:00.000Z');
  });

  it('is a millisecond after the approval before it when that one has the same moment or a later one', () => {
    expect(nextApprovedAt({ approvedAt: '2026-11-24T10:00:00.000Z' }, now)).toBe('2026-11-24T10:00:00.001Z');
    expect(nextApprovedAt({ approvedAt: '2026-11-24T10:00:00.250Z' }, now)).toBe('2026-11-24T10:00:00.251Z');
  });
});

describe("an approval's turn", () => {
  beforeAll(() => {
    vi.stubEnv('TABLE_NAME', 'pricing-service');
  });
  const next = { approvalId: 'apv_2', approvedAt: '2026-11-24T10:00:00.000Z', taskIds: ['wb_a'] };

  it('creates the first version only where none exists', () => {
    const update = takeTurn('ws_1', 'LAMP', undefined, next).Update;
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':version': 1, ':approvalId': 'apv_2', ':taskIds': ['wb_a'] });
    expect(update?.ConditionExpression).toBe('attribute_not_exists(PK)');
  });

  it('advances the version it read, on the condition that it is still that version', () => {
    const latest = { version: 4, approvalId: 'apv_1', approvedAt: '2026-11-24T09:00:00.000Z', taskIds: ['wb_z'] };
    const update = takeTurn('ws_1', 'LAMP', latest, next).Update;
    expect(update?.ExpressionAttributeValues).toMatchObject({ ':version': 5, ':approvalId': 'apv_2', ':seen': 4 });
    expect(update?.ConditionExpression).toBe('#version = :seen');
  });

  it('leaves the sequence acks have applied on the item, which a put would drop', () => {
    const latest = { version: 4, approvalId: 'apv_1', approvedAt: '2026-11-24T09:00:00.000Z', taskIds: ['wb_z'], appliedSequence: 3 };
    const update = takeTurn('ws_1', 'LAMP', latest, next).Update;
    expect(update?.UpdateExpression).not.toContain('appliedSequence');
    expect(update?.UpdateExpression).toContain('REMOVE waiting');
  });
});
