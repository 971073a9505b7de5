// Which key family of the model an actual partition key belongs to, so that counted units can be set beside modelled ones.
import type { ResolvedStep } from './model.ts';

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

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
