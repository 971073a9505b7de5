// Unit tests of the page registry: the navigation names every page that has an entry, and each page is served by exactly one console function.
import { describe, expect, it } from 'vitest';
import { consoleNavigation } from '#edge/console/navigation.ts';
import { matchPage } from '#edge/console/router.ts';
import { pricingPages } from '#edge/console/sections/pricing.ts';
import { reportPages } from '#edge/console/sections/reports.ts';
import { settingsPages } from '#edge/console/sections/settings.ts';
import { consolePages } from './index.ts';

describe('the console’s pages', () => {
  it('have the navigation entries the layout shows, in its order', () => {
    const entries = consolePages.filter((page) => page.nav).map((page) => ({ path: page.path, label: page.nav }));
    expect(consoleNavigation).toEqual(entries);
  });

  it('are each served by one console function, the one whose routes claim its path', () => {
    const sections = [...reportPages, ...pricingPages, ...settingsPages];
    expect(new Set(sections).size).toBe(sections.length);
    expect([...sections].sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      [...consolePages].sort((a, b) => a.path.localeCompare(b.path)),
    );
    for (const page of settingsPages) expect(page.path.startsWith('/console/settings/')).toBe(true);
    for (const page of pricingPages) expect(page.path.startsWith('/console/recommendations')).toBe(true);
    for (const page of reportPages)
      expect(page.path.startsWith('/console/settings/') || page.path.startsWith('/console/recommendations')).toBe(false);
    expect(matchPage(pricingPages, '/console/recommendations/LAMP-1')?.params).toEqual({ sku: 'LAMP-1' });
  });
});
