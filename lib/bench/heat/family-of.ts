// Which key family of the model an actual partition key belongs to, so that counted units can be set beside modelled ones.
import { type FamilyFigures, type RequestKind, type ResolvedStep, resolveStep } from './model.ts';
import type { PartitionTally } from './partition-counts.ts';

/** A matcher of actual keys for the families the steps land on, the most specific first. */
export function familyMatcher(steps: readonly ResolvedStep[], workspaceId: string): (partition: string) => string | undefined {
  const families = [...new Set(steps.map((step) => step.family))];
  const patterns = families
    .map((family) => {
      const literal = family.replace(/<[^>]+>/g, '');
      const source = family
        .split(/(<[^>]+>)/)
        .map((part) => (part === '<workspaceId>' ? escape(workspaceId) : part.startsWith('<') ? '[^#]+' : escape(part)))
        .join('');
      return { family, literal: literal.length, pattern: new RegExp(`^${source}$`) };
    })
    .sort((a, b) => b.literal - a.literal);
  return (partition) => patterns.find((candidate) => candidate.pattern.test(partition))?.family;
}

/** Counted units summed by the kind's key families (times `scale`); a partition of no family is reported under its own key. */
export function countedByFamily(kind: RequestKind, workspaceId: string, tally: PartitionTally, scale = 1): Map<string, FamilyFigures> {
  const familyOf = familyMatcher(
    kind.steps.map((step) => resolveStep(step)),
    workspaceId,
  );
  const families = new Map<string, FamilyFigures>();
  for (const [partition, count] of tally.partitions) {
    const family = familyOf(partition) ?? `(no family) ${partition}`;
    const sum = families.get(family) ?? { items: 0, readUnits: 0, writeUnits: 0 };
    families.set(family, sum);
    sum.items += count.items * scale;
    sum.readUnits += count.readUnits * scale;
    sum.writeUnits += count.writeUnits * scale;
  }
  return families;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
