// The landing page's panels, a morning's work: approvals waiting, the largest expected impact, failed write-backs, the last batch, this month's cost and adherence, each linked to where it is acted on.
import type { AdherenceGroup } from '#shared/adherence/schema.ts';
import type { WaitingApprovals } from '#shared/approvals/waiting.ts';
import type { Batch } from '#shared/batches/schema.ts';
import type { CatalogueRow } from '#shared/recommendations/catalogue.ts';
import type { Task } from '#shared/writebacks/schema.ts';
import { costDollars, moment, money, signedPct } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import { unguidedWords } from '#edge/console/pages/adherence.ts';
import { LIST_PATH, productPath } from '#edge/console/pages/recommendation-list.ts';
import { signedMoney } from './impact.ts';

/** Rows a panel lists at most: the landing page points the way, the page it links to holds the rest. */
export const PANEL_ROWS = 5;

export interface FailedWritebacks {
  /** Failed tasks among each connector's newest, newest first, with the connector's name. */
  readonly tasks: ReadonlyArray<Task & { readonly connectorName: string }>;
  /** Connectors whose tasks were read, of how many the workspace has. */
  readonly connectorsRead: number;
  readonly connectors: number;
}

export interface ConnectorBatches {
  readonly connectorName: string;
  /** The newest batch, whatever its state. */
  readonly latest?: Batch;
  /** The newest batch whose recommendations were recomputed: when the connector's prices were last brought up to date. */
  readonly recomputed?: Batch;
}

export interface MonthCost {
  readonly from: string;
  readonly to: string;
  readonly dollars: number;
  readonly requests: number;
}

export interface AdherenceSummary {
  readonly overall: AdherenceGroup;
  readonly currency: string;
  readonly fromMonth: string;
  readonly toMonth: string;
}

export interface MorningWork {
  readonly nowMs: number;
  /** The signed-in user, whose own waiting approvals someone else must second. */
  readonly userId: string;
  readonly waiting: WaitingApprovals;
  readonly topImpact: readonly CatalogueRow[];
  readonly failed: FailedWritebacks;
  readonly batches: readonly ConnectorBatches[];
  readonly cost: MonthCost;
  readonly adherence: AdherenceSummary;
}

export const IMPACT_PATH = `${LIST_PATH}?sort=impact-desc&state=unreviewed`;
export const WAITING_PATH = `${LIST_PATH}?state=waiting`;

function panel(id: string, heading: string, headline: Html | string, body: Html | string, link: Html): Html {
  return html`<section class="panel" aria-labelledby="${id}">
    <h2 id="${id}">${heading}</h2>
    <p class="headline">${headline}</p>
    ${body}
    <p class="panel-link">${link}</p>
  </section>`;
}

/** How long ago, in the largest whole unit a person reads at a glance. */
export function ago(iso: string, nowMs: number): string {
  const minutes = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 60_000));
  if (minutes === 0) return 'just now';
  if (minutes < 60) return minutes === 1 ? '1 minute ago' : `${minutes} minutes ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return hours === 1 ? '1 hour ago' : `${hours} hours ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

function waitingPanel(work: MorningWork): Html {
  const { waiting } = work;
  const count = `${waiting.count}${waiting.complete ? '' : ' or more'}`;
  const headline =
    waiting.count === 0
      ? 'No approval waits for a second approver.'
      : `${count} approval${waiting.count === 1 ? '' : 's'} wait${waiting.count === 1 ? 's' : ''} for a second approver.`;
  const rows = waiting.approvals.map((approval) => {
    const own = approval.approver?.id === work.userId;
    const by = approval.approver?.type === 'console_user' ? (approval.approver.email ?? approval.approver.id) : `API key ${approval.keyId}`;
    return html`<li>
      <a href="${productPath(approval.sku)}">${approval.sku}</a> at ${money(approval.priceCents, approval.currency)}, by
      ${own ? 'you (someone else must second it)' : by}; until ${moment(approval.secondApproval?.waitingUntil)}
    </li>`;
  });
  const body =
    rows.length === 0
      ? ''
      : html`<ul class="plain panel-rows">
          ${rows}
        </ul>`;
  return panel(
    'panel-waiting',
    'Waiting for a second approver',
    headline,
    body,
    html`<a href="${WAITING_PATH}">Review the waiting approvals</a>`,
  );
}

function impactPanel(work: MorningWork): Html {
  // A product held by data warnings is no gain whatever its estimate says: its data is checked first.
  const estimated = work.topImpact.filter((row) => row.expectedMarginChangeCents !== undefined && !row.warnings?.length);
  // Worth the most means a gain: a change expected to cost margin is no work to start the morning with, and the list's
  // own view shows it below every gain.
  const rows = estimated.filter((row) => (row.expectedMarginChangeCents ?? 0) > 0);
  const headline =
    estimated.length === 0
      ? 'No recommendation has an expected impact yet: it is estimated with each recommendation as prices are recomputed.'
      : rows.length === 0
        ? 'No recommendation not yet approved is expected to gain margin per quote.'
        : 'Not yet approved, worth the most expected margin per quote:';
  const body =
    rows.length === 0
      ? ''
      : html`<ol class="panel-rows">
          ${rows.map(
            (row) =>
              html`<li>
                <a href="${productPath(row.sku)}">${row.sku}</a>
                <strong>${signedMoney(row.expectedMarginChangeCents ?? 0, row.currency)}</strong> a quote
                <span class="subtitle"
                  >(${money(row.currentPriceCents, row.currency)} →
                  ${row.recommendedPriceCents === undefined ? '—' : money(row.recommendedPriceCents, row.currency)},
                  ${signedPct(row.changePct)})</span
                >
              </li>`,
          )}
        </ol>`;
  return panel(
    'panel-impact',
    'Largest expected impact',
    headline,
    body,
    html`<a href="${IMPACT_PATH}">Everything not yet approved, by expected impact</a>`,
  );
}

function failedPanel(work: MorningWork): Html {
  const { tasks, connectorsRead, connectors } = work.failed;
  const unread = connectors - connectorsRead;
  const headline =
    tasks.length === 0
      ? 'No failed write-back among the recent tasks.'
      : `${tasks.length} failed write-back${tasks.length === 1 ? '' : 's'} among the recent tasks.`;
  const rows = tasks
    .slice(0, PANEL_ROWS)
    .map(
      (task) =>
        html`<li>
          <a href="${productPath(task.productSku)}">${task.productSku}</a> at ${money(task.priceCents, task.currency)} to
          ${task.connectorName}: <span class="error-text">${task.error ?? 'no error given'}</span>
        </li>`,
    );
  const body = html`${
    rows.length === 0
      ? ''
      : html`<ul class="plain panel-rows">
          ${rows}
        </ul>`
  }
  ${unread > 0 ? html`<p class="hint">${unread} more connector${unread === 1 ? '' : 's'} not read here.</p>` : ''}`;
  return panel(
    'panel-failed',
    'Failed write-backs',
    headline,
    body,
    html`<a href="/console/writebacks">See every write-back and its error</a>`,
  );
}

function batchesPanel(work: MorningWork): Html {
  const recomputed = work.batches.flatMap((entry) => (entry.recomputed?.bandsRecomputedAt ? [entry.recomputed.bandsRecomputedAt] : []));
  const freshest = recomputed.sort().at(-1);
  const headline = freshest
    ? html`Prices last recomputed ${ago(freshest, work.nowMs)} (${moment(freshest)}).`
    : work.batches.length === 0
      ? 'No connector yet: prices are recomputed when a connector syncs a batch.'
      : 'No batch has recomputed prices yet.';
  const rows = work.batches.map(
    (entry) =>
      html`<li>
        ${entry.connectorName}:
        ${
          entry.latest
            ? html`last batch <span class="status status-${entry.latest.status}">${entry.latest.status}</span>, opened
                ${ago(entry.latest.createdAt, work.nowMs)}`
            : 'no batch yet'
        }
      </li>`,
  );
  const body =
    rows.length === 0
      ? ''
      : html`<ul class="plain panel-rows">
          ${rows}
        </ul>`;
  return panel('panel-batches', 'Last batch and fresh prices', headline, body, html`<a href="/console/batches">See the batches</a>`);
}

function costPanel(work: MorningWork): Html {
  const { cost } = work;
  const spent = costDollars(cost.dollars);
  const headline = html`<strong>${spent}</strong> from <time>${cost.from}</time> to <time>${cost.to}</time> (UTC), ${cost.requests}
    requests.`;
  return panel(
    'panel-cost',
    "This month's cost",
    headline,
    html`<p class="hint">At the AWS list prices, from the service's own count of what each request used.</p>`,
    html`<a href="${`/console/cost?from=${cost.from}&to=${cost.to}`}">See the cost by day and route</a>`,
  );
}

const share = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)}%`);

function adherencePanel(work: MorningWork): Html {
  const { overall, currency, fromMonth, toMonth } = work.adherence;
  const headline =
    overall.lines === 0
      ? `No closed quote lines from ${fromMonth} to ${toMonth}.`
      : (unguidedWords(overall) ??
        `${share(overall.guided_share)} of ${overall.lines} quote lines were guided; ${share(overall.within_share)} of those within the band.`);
  const body =
    overall.lines === 0
      ? ''
      : html`<ul class="plain panel-rows">
          <li>${overall.lines} closed quote lines, win rate ${share(overall.win_rate)}</li>
          <li>Leakage below the band ${money(overall.leakage_cents, currency)}</li>
          <li>From ${fromMonth} to ${toMonth}${overall.thin_evidence ? ': too few lines to call it a finding' : ''}</li>
        </ul>`;
  return panel(
    'panel-adherence',
    'Adherence to the guidance',
    headline,
    body,
    html`<a href="/console/adherence">See adherence by segment and reason</a>`,
  );
}

/** The panels in the order a morning takes them: what waits on a person first, then what went wrong, then the figures. */
export function morningPanels(work: MorningWork): Html {
  return html`<div class="panels">
    ${waitingPanel(work)} ${impactPanel(work)} ${failedPanel(work)} ${batchesPanel(work)} ${costPanel(work)} ${adherencePanel(work)}
  </div>`;
}
