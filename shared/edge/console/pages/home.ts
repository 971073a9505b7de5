// The console's front page: who is signed in, what each role may do, and where each task lives.
import { html } from '#edge/console/html.ts';
import type { ConsolePage } from '#edge/console/page.ts';
import { roleDescriptions } from '#edge/console/users.ts';

export const homePage: ConsolePage = {
  path: '/console',
  nav: 'Overview',
  async read(ctx) {
    const body = html`<h1>Pricing console</h1>
      <p>Signed in to workspace <code>${ctx.user.workspaceId}</code> as ${ctx.user.email}.</p>
      <h2>Your roles</h2>
      <ul>
        ${ctx.user.roles.map((role) => html`<li><strong>${role}</strong>: ${roleDescriptions[role]}</li>`)}
      </ul>
      <p>
        Every role reads every page. Use the navigation above: recommendations and approvals, batches, write-backs, cost and adherence, and
        the settings (API keys, connectors, webhooks, users).
      </p>`;
    return { title: 'Overview', body };
  },
};
