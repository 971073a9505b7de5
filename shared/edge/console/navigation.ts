// The console's navigation: every entry, in order, apart from the pages themselves, so that each console function renders the whole navigation while bundling only its own pages.
export interface NavigationEntry {
  readonly path: string;
  readonly label: string;
}

/** The `nav` of every page that has one, in the registry's order; pages/index.test.ts holds the two together. */
export const consoleNavigation: readonly NavigationEntry[] = [
  { path: '/console', label: 'Overview' },
  { path: '/console/recommendations', label: 'Recommendations' },
  { path: '/console/batches', label: 'Batches' },
  { path: '/console/writebacks', label: 'Write-backs' },
  { path: '/console/cost', label: 'Cost' },
  { path: '/console/adherence', label: 'Adherence' },
  { path: '/console/settings/api-keys', label: 'API keys' },
  { path: '/console/settings/connectors', label: 'Connectors' },
  { path: '/console/settings/webhooks', label: 'Webhooks' },
  { path: '/console/settings/users', label: 'Users' },
];
