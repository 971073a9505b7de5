// The console's write-backs: each connector's recent tasks, pending, leased, applied, failed or cancelled, with counts by status.
import { connectorsPage } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { recentTasks, shownStatus } from '#shared/writebacks/listing.ts';
import type { Task } from '#shared/writebacks/schema.ts';
import { moment, money } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageView } from '#edge/console/page.ts';
import { productPath } from './recommendation-paths.ts';

export interface ConnectorTasks {
  readonly connector: Pick<Connector, 'connectorId' | 'name' | 'receivesWritebacks'>;
  readonly tasks: readonly Task[];
}

const shownStatuses = ['pending', 'leased', 'lease expired', 'applied', 'failed', 'cancelled'] as const;

function counts(tasks: readonly Task[], nowMs: number): Html {
  const byStatus = new Map<string, number>();
  for (const task of tasks) byStatus.set(shownStatus(task, nowMs), (byStatus.get(shownStatus(task, nowMs)) ?? 0) + 1);
  return html`<ul class="counts">
    ${shownStatuses
      .filter((status) => byStatus.has(status))
      .map((status) => html`<li><span class="status status-${status.replace(' ', '-')}">${status}</span> ${byStatus.get(status)}</li>`)}
  </ul>`;
}

function connectorSection({ connector, tasks }: ConnectorTasks, nowMs: number): Html {
  const headingId = `writebacks-${connector.connectorId}`;
  return html`<section aria-labelledby="${headingId}">
    <h2 id="${headingId}">${connector.name} <span class="id">${connector.connectorId}</span></h2>
    ${connector.receivesWritebacks ? '' : html`<p>This connector does not receive write-backs.</p>`}
    ${
      tasks.length === 0
        ? html`<p>No write-back tasks yet.</p>`
        : html`${counts(tasks, nowMs)}
            <div class="table-wrap" tabindex="0" role="region" aria-label="${`Recent write-back tasks of ${connector.name}`}">
              <table class="data">
                <caption>
                  Recent write-back tasks of ${connector.name}, newest first
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Task</th>
                    <th scope="col">SKU</th>
                    <th scope="col" class="number">Price</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created (UTC)</th>
                    <th scope="col" class="number">Leases</th>
                    <th scope="col">Finished (UTC)</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  ${tasks.map((task) => {
                    const status = shownStatus(task, nowMs);
                    return html`<tr data-task-id="${task.taskId}">
                      <th scope="row"><code>${task.taskId}</code></th>
                      <td><a href="${productPath(task.productSku)}">${task.productSku}</a></td>
                      <td class="number">${money(task.priceCents, task.currency)}</td>
                      <td><span class="status status-${status.replace(' ', '-')}">${status}</span></td>
                      <td>${moment(task.createdAt, { nowMs })}</td>
                      <td class="number">${task.leases ?? 0}</td>
                      <td>${moment(task.finishedAt, { nowMs })}</td>
                      <td>${task.error ?? (task.supersededBy ? `superseded by ${task.supersededBy}` : '')}</td>
                    </tr>`;
                  })}
                </tbody>
              </table>
            </div>`
    }
  </section>`;
}

/** The page's body: pure, so that its rows and escaping are unit-tested. */
/** `next`, when given, is the last connector shown: the page's connectors are read a page at a time. */
export function writebacksView(connectors: readonly ConnectorTasks[], nowMs: number, next?: string): PageView {
  const body = html`<h1>Write-backs</h1>
    <p class="summary">Approved prices each connector is to apply: the newest tasks of each, whatever their status.</p>
    ${connectors.length === 0 ? html`<p>No connectors yet: an admin creates one under Settings.</p>` : connectors.map((entry) => connectorSection(entry, nowMs))}
    ${next === undefined ? '' : html`<p><a href="/console/writebacks?after=${next}" rel="next">Next connectors</a></p>`}`;
  return { title: 'Write-backs', body };
}

export const writebacksPage: ConsolePage = {
  path: '/console/writebacks',
  nav: 'Write-backs',
  async read(ctx) {
    const page = await connectorsPage(ctx.user.workspaceId, ctx.query.get('after') ?? undefined);
    const lists = await Promise.all(
      page.connectors.map(async (connector) => ({ connector, tasks: await recentTasks(ctx.user.workspaceId, connector.connectorId) })),
    );
    return writebacksView(lists, ctx.nowMs, page.next);
  },
};
