// The product page's approvals: its approval history, and the step that confirms a large move before it is approved.
import { apiKeyNames } from '#shared/api-keys/repository.ts';
import type { Approver } from '#shared/approvals/approve.ts';
import { connectorNames } from '#shared/connectors/repository.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { type ApprovalHistoryEntry, approvalHistoryView, readApprovalHistory } from '#shared/approvals/history.ts';
import { ConfirmationRequired, type PendingConfirmation, type SeenRecommendation } from '#shared/approvals/rules.ts';
import type { Approval } from '#shared/approvals/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { fromDecimalAmount } from '#shared/pricing/currency.ts';
import type { PriceWorth } from '#shared/recommendations/price-worth.ts';
import type { PricedRecommendation } from '#shared/recommendations/schema.ts';
import * as v from 'valibot';
import { alert, facts, moment, money, signedPct } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import { marginText } from './basis.ts';
import { signedMoney } from './impact.ts';
import type { ActionOutcome, ConsoleUser, PageView } from '#edge/console/page.ts';

/** Approvals the product page shows: the newest; the API and the admin CLI page through the rest. */
export const PAGE_APPROVALS = 20;

/** The names of the keys and connectors a history shows, by id: people read names; the id stays beside them to match the API. */
export interface HistoryNames {
  readonly keys: ReadonlyMap<string, string>;
  readonly connectors: ReadonlyMap<string, string>;
}

const noNames: HistoryNames = { keys: new Map(), connectors: new Map() };

function approverText(approver: ApprovalHistoryEntry['approved_by'], names: HistoryNames): Html | string {
  if (approver.type === 'console_user') return approver.email ?? approver.id;
  const name = names.keys.get(approver.id);
  return name === undefined ? `API key ${approver.id}` : html`API key “${name}” <code>${approver.id}</code>`;
}

const statusText: Record<ApprovalHistoryEntry['status'], string> = {
  published: 'published',
  waiting: 'waiting for a second approver',
  superseded: 'superseded while waiting',
  expired: 'expired while waiting',
};

function secondApproval(entry: ApprovalHistoryEntry, names: HistoryNames): Html | string {
  const second = entry.second_approval;
  if (!second) return 'not needed';
  if (second.approved_by) return html`${approverText(second.approved_by, names)}, ${moment(second.approved_at ?? undefined)}`;
  return html`needed (past ${second.threshold_pct}%), until ${moment(second.waiting_until)}`;
}

/**
 * The approval's status and its write-backs. A sandbox approval (a test key's) published nothing and is never the live
 * state: it says so in words, where a bare "published" would read as the price in force.
 */
function statusCell(entry: ApprovalHistoryEntry, names: HistoryNames, resend: ResendForm | undefined): Html | string {
  if (!entry.livemode) return html`<strong>Sandbox</strong>: a test key’s approval, never published; the live price is unchanged`;
  if (entry.tasks.length === 0) return statusText[entry.status];
  return html`${statusText[entry.status]}
    <ul class="plain">
      ${entry.tasks.map(
        (task, index) =>
          html`<li>
            ${connectorText(task.connector_id, names)}:
            ${task.state}${task.error === null ? '' : html` (<span class="error-text">${task.error}</span>)`}
            ${
              resend && task.state === 'failed' && !entry.tasks.slice(index + 1).some((later) => later.connector_id === task.connector_id)
                ? resendButton(task.writeback_id, resend)
                : ''
            }
          </li>`,
      )}
    </ul>`;
}

/** What the history needs to offer a failed write-back again: the session's token, for a person who may publish prices. */
export interface ResendForm {
  readonly csrfToken: string;
}

/** Sends the failed task's price to its connector again: the service never does on its own, a person decides. */
function resendButton(taskId: string, { csrfToken }: ResendForm): Html {
  return html`<form class="inline" method="post">
    <input type="hidden" name="_csrf" value="${csrfToken}" />
    <input type="hidden" name="_action" value="resend" />
    <input type="hidden" name="task" value="${taskId}" />
    <button type="submit" class="secondary">Send again</button>
  </form>`;
}

function confirmationText(confirmation: ApprovalHistoryEntry['confirmation']): string {
  if (!confirmation) return 'not needed';
  if (confirmation.warnings) return `confirmed over data warnings (${confirmation.warnings.join(', ')})`;
  return `confirmed (past ${confirmation.threshold_pct}%)`;
}

function connectorText(connectorId: string, names: HistoryNames): Html {
  const name = names.connectors.get(connectorId);
  return name === undefined ? html`<code>${connectorId}</code>` : html`${name} <code>${connectorId}</code>`;
}

/** The history as a table: pure, so that what it shows of each approval is unit-tested. */
export function approvalHistoryTable(
  entries: readonly ApprovalHistoryEntry[],
  sku: string,
  names: HistoryNames = noNames,
  resend?: ResendForm,
): Html {
  // Only the newest live approval's failures may be sent again: an older price was replaced by that one.
  const newestLive = entries.find((entry) => entry.livemode);
  if (entries.length === 0) return html`<p>No price of ${sku} has been approved yet.</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${`Approvals of ${sku}`}">
    <table class="data">
      <caption>
        Approvals of ${sku}, newest first (UTC)
      </caption>
      <thead>
        <tr>
          <th scope="col">Approved</th>
          <th scope="col">Price</th>
          <th scope="col">Checks</th>
          <th scope="col">Status and write-backs</th>
        </tr>
      </thead>
      <tbody>
        ${entries.map(
          (entry) =>
            html`<tr>
              <th scope="row">${moment(entry.approved_at)}<br />${approverText(entry.approved_by, names)}</th>
              <td>
                <strong>${amountText(entry.price, entry.currency)}</strong> (${signedPct(entry.change_pct)})<br />
                ${recommendedText(entry)}
              </td>
              <td>
                Confirmation: ${confirmationText(entry.confirmation)}<br />
                Second approver: ${secondApproval(entry, names)}
              </td>
              <td>${statusCell(entry, names, entry === newestLive && entry.status === 'published' ? resend : undefined)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The recommendation beside the approved price: the price as shown is said so, not read as an override of what it moved to. */
function recommendedText(entry: ApprovalHistoryEntry): string {
  const recommended = amountText(entry.recommendation.recommended_price, entry.currency);
  const shown = entry.recommendation.shown_price;
  return shown === entry.price ? `as shown; recommended ${recommended} when approved` : `recommended ${recommended}`;
}

/** A decimal of the history as the console writes every amount. */
function amountText(amount: number, currency: string): string {
  return money(fromDecimalAmount(amount, currency) ?? 0, currency);
}

/**
 * The history section as shown, and the newest live approval: the page's form starts from what was last approved. A
 * sandbox approval never stands for the product's state, as the list's approval state does not count it either.
 */
export interface ProductApprovals {
  readonly section: Html;
  readonly newest?: ApprovalHistoryEntry;
}

/** The names of the keys and connectors the entries show: nothing is read when they show none. */
async function namesIn(workspaceId: string, entries: readonly ApprovalHistoryEntry[]): Promise<HistoryNames> {
  const keyIds = entries
    .flatMap((entry) => [entry.approved_by, entry.second_approval?.approved_by ?? undefined])
    .flatMap((approver) => (approver?.type === 'api_key' ? [approver.id] : []));
  const connectorIds = entries.flatMap((entry) => entry.tasks.map((task) => task.connector_id));
  const [keys, connectors] = await Promise.all([apiKeyNames(workspaceId, keyIds), connectorNames(workspaceId, connectorIds)]);
  return { keys, connectors };
}

/** The product page's history section: the newest approvals, with each connector's task as it stands. */
export async function readProductApprovals(
  workspaceId: string,
  sku: string,
  nowMs: number,
  resend?: ResendForm,
): Promise<ProductApprovals> {
  try {
    const page = await readApprovalHistory(workspaceId, sku, { limit: PAGE_APPROVALS });
    const view = approvalHistoryView(page, nowMs);
    const more =
      view.next === null
        ? ''
        : html`<p class="hint">Older approvals: GET /v1/prices/${sku}/approvals, or the admin CLI's approval history.</p>`;
    const newest = view.data.find((entry) => entry.livemode);
    const names = await namesIn(workspaceId, view.data);
    return { section: html`${approvalHistoryTable(view.data, sku, names, resend)}${more}`, ...(newest ? { newest } : {}) };
  } catch (error) {
    // A product the workspace does not know has no history to show; the page says so above.
    if (error instanceof ApiError && error.code === 'not_found') return { section: html`` };
    throw error;
  }
}

export async function approvalHistorySection(workspaceId: string, sku: string, nowMs: number): Promise<Html> {
  return (await readProductApprovals(workspaceId, sku, nowMs)).section;
}

/** What the page says after an approval: the tasks it published, or that it waits for a second approver. */
export function approvalNotice(approval: Approval): string {
  const price = `${money(approval.priceCents, approval.currency)} for ${approval.sku}`;
  if (approval.status === 'waiting') {
    return `Approved ${price}: the change needs a second approver, who must approve the same price by ${approval.secondApproval?.waitingUntil.slice(0, 16).replace('T', ' ')} UTC. Nothing is published until then.`;
  }
  const connectors = approval.publishedTo.length;
  const second = approval.secondApproval?.approver ? ' as the second approver' : '';
  return `Approved ${price}${second}: ${connectors} pending write-back${connectors === 1 ? '' : 's'}.`;
}

/** Each data warning the confirmation is over, by its code and message. */
function warningsList(pending: PendingConfirmation): Html {
  if (pending.warnings.length === 0) return html``;
  return html`<div class="data-warnings" role="alert">
    <p><strong>Check the data of ${pending.sku}</strong>: its last batch brought values that look wrong.</p>
    <ul>
      ${pending.warnings.map((warning) => html`<li><code>${warning.code}</code>: ${warning.message}</li>`)}
    </ul>
  </div>`;
}

/**
 * The step that confirms a large move, or a price for a product held by data warnings: each warning, both prices and
 * the change, and a form that approves again with the confirmation.
 */
export function confirmationView(input: ConfirmationForm & { readonly pending: PendingConfirmation }): PageView {
  const { pending } = input;
  const change = pending.changePct === null ? 'from no current price' : signedPct(pending.changePct);
  const large = pending.large
    ? alert(
        'error',
        `This price moves ${pending.sku} further from its current price than the ${pending.thresholdPct}% an approval may move it unconfirmed.`,
      )
    : '';
  const body = html`<p class="breadcrumb"><a href="${input.action}">${pending.sku}</a></p>
    <h1>${pending.large ? 'Confirm a large price change' : 'Confirm a price over data warnings'}</h1>
    ${warningsList(pending)} ${large}
    ${facts('The change to confirm', [
      ['Current price', money(pending.currentPriceCents, pending.currency)],
      ...(input.worth?.recommended
        ? ([['Recommended price', recommendedPriceText(input.worth.recommended, pending.currency)]] as const)
        : []),
      ['Price to approve', money(pending.priceCents, pending.currency)],
      ['Change', change],
      ...(input.worth?.atPrice ? worthFacts(input.worth.atPrice, pending.currency) : []),
    ])}
    <form class="approve" method="post" action="${input.action}">
      <input type="hidden" name="_csrf" value="${input.csrfToken}" />
      <input type="hidden" name="_action" value="approve" />
      <input type="hidden" name="price" value="${input.entered}" />
      ${input.shown === undefined ? '' : html`<input type="hidden" name="shown" value="${input.shown}" />`}
      <input type="hidden" name="confirm" value="yes" />
      <p class="hint">Every connector that takes write-backs receives the confirmed price as a pending task.</p>
      <button type="submit">Confirm and approve ${money(pending.priceCents, pending.currency)}</button>
      <p><a href="${input.action}">Cancel: back to ${pending.sku}</a></p>
    </form>`;
  return { title: `Confirm ${pending.sku} · Recommendation`, body };
}

/** What the confirmation step puts beside the price to approve: the recommendation, and what the price is worth. */
export interface ConfirmationWorth {
  readonly recommended?: { readonly priceCents: number; readonly margin?: number };
  readonly atPrice?: PriceWorth;
}

interface ConfirmationForm {
  /** The product page, where the form posts and where cancelling goes back to. */
  readonly action: string;
  readonly entered: string;
  readonly csrfToken: string;
  /** The recommendation the approve form showed, carried on so that the confirmed price is still the one shown. */
  readonly shown?: string;
  readonly worth?: ConfirmationWorth;
}

function recommendedPriceText(recommended: NonNullable<ConfirmationWorth['recommended']>, currency: string): string {
  const price = money(recommended.priceCents, currency);
  return recommended.margin === undefined ? price : `${price} (margin ${marginText(recommended.margin)})`;
}

/** The margin at the price to approve, and the expected impact of moving to it, per quote and per month, or why not. */
function worthFacts(worth: PriceWorth, currency: string): ReadonlyArray<readonly [string, Html | string]> {
  const margin: readonly [string, string] = [
    'Margin at this price',
    worth.margin === undefined ? 'no cost to judge it by' : marginText(worth.margin),
  ];
  const { impact } = worth;
  if (impact.status !== 'estimated') return [margin, ['Expected impact at this price', `too thin to say: ${impact.reason}`]];
  const month = impact.perMonth
    ? `; ${signedMoney(impact.perMonth.expectedMarginChangeCents, currency)} a month at its recent quote rate`
    : '';
  return [
    margin,
    ['Expected impact at this price', `${signedMoney(impact.expectedMarginChangeCents, currency)} of margin per quote${month}`],
  ];
}

/** The recommendation a product's approve form showed, as its hidden field carries it: decision, price and currency. */
const ShownFieldSchema = v.strictTuple([
  v.pipe(v.string(), v.maxLength(64)),
  v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)),
]);

export function shownField(recommendation: Pick<PricedRecommendation, 'pricingDecisionId' | 'recommendedPriceCents' | 'currency'>): string {
  const carried = [recommendation.pricingDecisionId, recommendation.recommendedPriceCents, recommendation.currency];
  return Buffer.from(JSON.stringify(carried)).toString('base64url');
}

/**
 * The recommendation the person saw, when the price they approve is it: then the approval is held to it within the
 * workspace's tolerance, and recorded as the price shown. A price they typed themselves, or a field the console did
 * not write, names nothing shown: it is their own price, as an approval through the API is.
 */
export function seenRecommendation(field: string | undefined, price: number): SeenRecommendation | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(field ?? '', 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!v.is(ShownFieldSchema, parsed)) return undefined;
  const [pricingDecisionId, recommendedPriceCents, currency] = parsed;
  if (fromDecimalAmount(price, currency) !== recommendedPriceCents) return undefined;
  return { pricingDecisionId, recommendedPriceCents, currency };
}

/** An approval refused for want of confirmation leads to the confirmation step; any other refusal is the caller's to show. */
export function confirmationStep(error: unknown, form: ConfirmationForm): ActionOutcome | undefined {
  if (!(error instanceof ConfirmationRequired)) return undefined;
  return { kind: 'render', status: 422, view: confirmationView({ ...form, pending: error.pending }) };
}

/** A console user approves as a live key does: the approval is published to every connector that takes write-backs. */
export function consoleApprover(user: Pick<ConsoleUser, 'userId' | 'email' | 'createdAt' | 'createdBy'>, workspace: Workspace): Approver {
  const consoleUser = {
    email: user.email,
    ...(user.createdAt === undefined ? {} : { createdAt: user.createdAt }),
    ...(user.createdBy === undefined ? {} : { createdBy: user.createdBy }),
  };
  return { keyId: user.userId, family: 'pw_live', workspaceId: workspace.workspaceId, workspace, consoleUser };
}
