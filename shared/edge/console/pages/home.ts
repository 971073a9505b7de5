// The console's landing page, a morning's work: what waits for a person and what went wrong, then the figures, each linked to the page that acts on it.
import { readAdherenceReport } from '#shared/adherence/repository.ts';
import { reportPeriod } from '#shared/adherence/report.ts';
import { readSkuApprovals } from '#shared/approvals/sku-states.ts';
import { readWaitingApprovals } from '#shared/approvals/waiting.ts';
import { recentBatches } from '#shared/batches/listing.ts';
import { listConnectors } from '#shared/connectors/repository.ts';
import type { Connector } from '#shared/connectors/schema.ts';
import { dayOf } from '#shared/cost/counts.ts';
import { buildCostReport } from '#shared/cost/report.ts';
import { readCostLedger } from '#shared/cost/repository.ts';
import { readCatalogueQuery } from '#shared/recommendations/catalogue.ts';
import { readListTop } from '#shared/recommendations/listing-pages.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { recentTasks, standingFailures } from '#shared/writebacks/listing.ts';
import { html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';
import {
  type AdherenceSummary,
  type ConnectorBatches,
  type FailedWritebacks,
  type MonthCost,
  type MorningWork,
  morningPanels,
  PANEL_ROWS,
} from '#edge/console/sections/morning.ts';

/** Connectors whose batches and tasks the landing page reads at most: past that, their pages hold the rest. */
export const LANDING_CONNECTORS = 5;
/** Batches read per connector: the newest, and enough behind it to find the last that recomputed prices. */
export const LANDING_BATCHES = 5;

/** The landing page's body: pure, so that what each panel says and links to is unit-tested. */
export function landingView(work: MorningWork, user: ConsoleContext['user']): PageView {
  const body = html`<h1>Today's pricing work</h1>
    ${morningPanels(work)}
    <p class="hint signed-in">
      Signed in to workspace <code>${user.workspaceId}</code> as ${user.email} (${user.roles.join(', ')}). Every role reads every page;
      approving a price needs the pricing role.
    </p>`;
  return { title: 'Overview', body };
}

/** Failed tasks among each connector's newest (the write-backs page's own read) that no later task of their SKU replaced, newest first. */
async function readFailed(workspaceId: string, connectors: readonly Connector[]): Promise<FailedWritebacks> {
  const read = connectors.slice(0, LANDING_CONNECTORS);
  const lists = await Promise.all(
    read.map(async (connector) =>
      standingFailures(await recentTasks(workspaceId, connector.connectorId)).map((task) => ({ ...task, connectorName: connector.name })),
    ),
  );
  const tasks = lists.flat().sort((a, b) => (b.finishedAt ?? b.createdAt).localeCompare(a.finishedAt ?? a.createdAt));
  return { tasks, connectorsRead: read.length, connectors: connectors.length };
}

async function readBatches(workspaceId: string, connectors: readonly Connector[], now: Date): Promise<ConnectorBatches[]> {
  return Promise.all(
    connectors.slice(0, LANDING_CONNECTORS).map(async (connector) => {
      const batches = await recentBatches(workspaceId, connector.connectorId, now, LANDING_BATCHES);
      const latest = batches[0];
      const recomputed = batches.find((batch) => batch.bandsRecomputedAt !== undefined);
      return { connectorName: connector.name, ...(latest ? { latest } : {}), ...(recomputed ? { recomputed } : {}) };
    }),
  );
}

/** The month so far (UTC): its ledger items, one Query. */
async function readMonthCost(workspaceId: string, nowMs: number): Promise<MonthCost> {
  const to = dayOf(nowMs);
  const from = `${to.slice(0, 8)}01`;
  const rows = await readCostLedger(workspaceId, from, to);
  const { total } = buildCostReport(workspaceId, { from, to, by: 'day' }, rows);
  return { from, to, dollars: total.cost.total, requests: total.requests };
}

/** The adherence page's default period (the last twelve months), so that both say the same. */
async function readAdherence(workspaceId: string, now: Date): Promise<AdherenceSummary> {
  const period = reportPeriod(undefined, undefined, now) as { fromMonth: string; toMonth: string };
  const [report, workspace] = await Promise.all([readAdherenceReport(workspaceId, period, undefined), getWorkspace(workspaceId)]);
  return { overall: report.overall, currency: workspace?.baseCurrency ?? 'USD', ...period };
}

/** Every read the page makes, bounded: docs/cost.md counts them. */
export async function readMorningWork(ctx: ConsoleContext): Promise<MorningWork> {
  const { workspaceId } = ctx.user;
  const now = new Date(ctx.nowMs);
  const connectors = await listConnectors(workspaceId);
  // The list page's own read of its first page, sorted by expected impact and filtered to what nobody has approved
  // yet, cut to a panel's rows: an approved SKU is done work, whatever its change is still worth on paper. The
  // states are read a few rows at a time, in the list's order, and no further than the panel's last row.
  const impactQuery = readCatalogueQuery(new URLSearchParams({ sort: 'impact-desc' }));
  const unreviewed = async <Row extends { readonly sku: string }>(rows: Row[]) => {
    const states = await readSkuApprovals(
      workspaceId,
      rows.map((row) => row.sku),
      ctx.nowMs,
    );
    return rows.filter((row) => (states.get(row.sku)?.state ?? 'unreviewed') === 'unreviewed');
  };
  const [waiting, topImpact, failed, batches, cost, adherence] = await Promise.all([
    readWaitingApprovals(workspaceId, ctx.nowMs, PANEL_ROWS),
    readListTop(workspaceId, impactQuery, PANEL_ROWS, unreviewed),
    readFailed(workspaceId, connectors),
    readBatches(workspaceId, connectors, now),
    readMonthCost(workspaceId, ctx.nowMs),
    readAdherence(workspaceId, now),
  ]);
  return { nowMs: ctx.nowMs, userId: ctx.user.userId, waiting, topImpact, failed, batches, cost, adherence };
}

export const homePage: ConsolePage = {
  path: '/console',
  nav: 'Overview',
  async read(ctx) {
    return landingView(await readMorningWork(ctx), ctx.user);
  },
};
