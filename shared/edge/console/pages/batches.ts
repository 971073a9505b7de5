// The console's batches: each connector's recent ingest batches, their status, how far their drain has come, and their errors.
import { recentBatches } from '#shared/batches/listing.ts';
import type { Batch } from '#shared/batches/schema.ts';
import { connectorsPage } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { moment } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsolePage, PageView } from '#edge/console/page.ts';

export interface ConnectorBatches {
  readonly connector: Pick<Connector, 'connectorId' | 'name'>;
  readonly batches: readonly Batch[];
}

/** How far a batch is, in words and as a bar: staged records until commit, then records drained of those staged. */
function progress(batch: Batch): Html {
  if (batch.status === 'open') return html`${batch.recordCount} staged`;
  const drained = batch.status === 'drained' ? batch.recordCount : Math.min(batch.drainedCount ?? 0, batch.recordCount);
  const label = `${drained} of ${batch.recordCount} drained`;
  return html`<progress max="${Math.max(1, batch.recordCount)}" value="${drained}" aria-label="${label}"></progress> ${label}`;
}

/** The products the drain left with data warnings: held for a check, each saying why on its own page. */
function warned(batch: Batch): Html | string {
  const count = batch.warnedProducts ?? 0;
  if (count === 0) return '';
  return html`<br /><span class="check-data">${count} product${count === 1 ? '' : 's'} to check</span> (data warnings)`;
}

function statusCell(batch: Batch): Html {
  const after = batch.status === 'drained' && !batch.bandsRecomputedAt ? ' (prices updating)' : '';
  return html`<td><span class="status status-${batch.status}">${batch.status}</span>${after}</td>`;
}

function connectorSection({ connector, batches }: ConnectorBatches, nowMs: number): Html {
  const headingId = `batches-${connector.connectorId}`;
  return html`<section aria-labelledby="${headingId}">
    <h2 id="${headingId}">${connector.name} <span class="id">${connector.connectorId}</span></h2>
    ${
      batches.length === 0
        ? html`<p>No batches yet.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="${`Recent batches of ${connector.name}`}">
            <table class="data">
              <caption>
                Recent batches of ${connector.name}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Batch</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Entities</th>
                  <th scope="col">Opened (UTC)</th>
                  <th scope="col">Committed (UTC)</th>
                  <th scope="col">Drained (UTC)</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                ${batches.map(
                  (batch) =>
                    html`<tr data-batch-id="${batch.batchId}">
                      <th scope="row"><code>${batch.batchId}</code></th>
                      ${statusCell(batch)}
                      <td>
                        ${progress(batch)}${batch.skippedOverCap > 0 ? html`<br />${batch.skippedOverCap} skipped over the cap` : ''}${warned(batch)}
                      </td>
                      <td>${batch.entities.join(', ') || '—'}</td>
                      <td>${moment(batch.createdAt, { nowMs })}</td>
                      <td>${moment(batch.committedAt, { nowMs })}</td>
                      <td>${moment(batch.drainedAt, { nowMs })}</td>
                      <td>${batch.error ?? ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

/** The page's body: pure, so that its rows and escaping are unit-tested. */
/** `next`, when given, is the last connector shown: the page's connectors are read a page at a time. */
export function batchesView(connectors: readonly ConnectorBatches[], nowMs: number, next?: string): PageView {
  const body = html`<h1>Batches</h1>
    <p class="summary">Each connector's most recent ingest batches. Reload the page to follow a drain.</p>
    ${connectors.length === 0 ? html`<p>No connectors yet: an admin creates one under Settings.</p>` : connectors.map((entry) => connectorSection(entry, nowMs))}
    ${next === undefined ? '' : html`<p><a href="/console/batches?after=${next}" rel="next">Next connectors</a></p>`}`;
  return { title: 'Batches', body };
}

export const batchesPage: ConsolePage = {
  path: '/console/batches',
  nav: 'Batches',
  async read(ctx) {
    const page = await connectorsPage(ctx.user.workspaceId, ctx.query.get('after') ?? undefined);
    const now = new Date(ctx.nowMs);
    const lists = await Promise.all(
      page.connectors.map(async (connector) => ({
        connector,
        batches: await recentBatches(ctx.user.workspaceId, connector.connectorId, now),
      })),
    );
    return batchesView(lists, ctx.nowMs, page.next);
  },
};
