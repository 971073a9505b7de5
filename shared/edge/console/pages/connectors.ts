// Settings → connectors: the workspace's connectors, and creating one as the admin CLI does; changes need the admin role.
import { ApiError } from '#platform/errors.ts';
import { createConnector, listConnectors } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';

export const CONNECTORS_PATH = '/console/settings/connectors';
const MAX_NAME_LENGTH = 100;

function createForm(ctx: ConsoleContext): Html {
  if (!ctx.user.roles.includes('admin')) return html`<p class="muted">Creating connectors needs the admin role.</p>`;
  return html`<form method="post" action="${CONNECTORS_PATH}">
    <fieldset>
      <legend>New connector</legend>
      <input type="hidden" name="_csrf" value="${ctx.csrfToken}" />
      <input type="hidden" name="_action" value="create" />
      <label for="connector-name">Name</label>
      <input id="connector-name" name="name" type="text" required maxlength="${MAX_NAME_LENGTH}" />
      <label class="choice"
        ><input type="checkbox" name="receivesWritebacks" value="yes" checked /> Receives write-backs of approved prices</label
      >
      <div class="actions"><button type="submit">Create connector</button></div>
    </fieldset>
  </form>`;
}

export function connectorsView(ctx: ConsoleContext, connectors: readonly Connector[], error?: string): PageView {
  const body = html`<h1>Connectors</h1>
    <p>
      The ERP or CRM integrations that ingest the workspace's data and apply its approved prices. A connector's keys are made under API
      keys.
    </p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <div class="table-wrap" tabindex="0" role="region" aria-label="Connectors of the workspace">
      <table>
        <caption class="muted">
          Connectors of the workspace
        </caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Id</th>
            <th scope="col">Write-backs</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          ${
            connectors.length === 0
              ? html`<tr>
                  <td colspan="4">No connectors yet.</td>
                </tr>`
              : connectors.map(
                  (connector) =>
                    html`<tr>
                      <th scope="row">${connector.name}</th>
                      <td><code>${connector.connectorId}</code></td>
                      <td>${connector.receivesWritebacks ? 'yes' : 'no'}</td>
                      <td>${connector.createdAt.slice(0, 16).replace('T', ' ')} UTC</td>
                    </tr>`,
                )
          }
        </tbody>
      </table>
    </div>
    <h2>Create a connector</h2>
    ${createForm(ctx)}`;
  return { title: 'Connectors', body };
}

export const connectorsPage: ConsolePage = {
  path: CONNECTORS_PATH,
  nav: 'Connectors',
  read: async (ctx) => connectorsView(ctx, await listConnectors(ctx.user.workspaceId)),
  actions: {
    create: {
      role: 'admin',
      async run(ctx, form) {
        const name = (form.name ?? '').trim();
        if (name === '' || name.length > MAX_NAME_LENGTH) {
          const error = `A connector needs a name of 1 to ${MAX_NAME_LENGTH} characters.`;
          return { kind: 'render', status: 422, view: connectorsView(ctx, await listConnectors(ctx.user.workspaceId), error) };
        }
        let connector;
        try {
          connector = await createConnector(
            { workspaceId: ctx.user.workspaceId, name, receivesWritebacks: form.receivesWritebacks === 'yes' },
            new Date(ctx.nowMs),
          );
        } catch (error) {
          // At the workspace's limit: the page again, saying so, and nothing created.
          if (!(error instanceof ApiError) || error.code !== 'connector_limit_reached') throw error;
          return { kind: 'render', status: 422, view: connectorsView(ctx, await listConnectors(ctx.user.workspaceId), error.message) };
        }
        return { kind: 'redirect', location: CONNECTORS_PATH, notice: `Created connector ${connector.name} (${connector.connectorId}).` };
      },
    },
  },
};
