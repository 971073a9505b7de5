// For unit tests of the console's views: markup compared as a browser reads it, whatever whitespace the source's formatting put between tags.
import { expect } from 'vitest';
import type { Html } from '#edge/console/html.ts';

/** Runs of whitespace as one space, none next to a tag's brackets, and void elements without their optional slash. */
export function compactMarkup(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\s*\/>/g, '>')
    .replace(/\s*([<>])\s*/g, '$1');
}

/** The markup holds each fragment, both compacted alike. */
export function expectShown(markup: Html | string, ...fragments: string[]): void {
  const shown = compactMarkup(String(markup));
  for (const fragment of fragments) expect(shown).toContain(compactMarkup(fragment));
}
