// The console's bulk approval: the step that confirms a selection of the list with its summed expected impact, under a one-time token, and the round that approves it.
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import {
  approveRound,
  type BulkLine,
  type BulkReview,
  checkSelectionSize,
  newBulkId,
  reviewSelection,
  type SeenLine,
} from '#shared/approvals/bulk.ts';
import { impactTotals } from '#shared/approvals/bulk-totals.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import { consoleRouteById } from '#edge/routes/console.ts';
import { alert, facts, money, signedPct } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ActionOutcome, ConsoleContext, PageAction, PageView } from '#edge/console/page.ts';
import { consoleApprover } from '#edge/console/sections/approvals.ts';
import { bulkResultsView } from './bulk-results.ts';
import { listLink, productPath } from './recommendation-paths.ts';

/** An expected change with its sign and currency, as every impact in the console reads. */
export function expectedImpact(cents: number, currency: string): string {
  return `${cents > 0 ? '+' : cents < 0 ? '−' : ''}${money(Math.abs(cents), currency)}`;
}

/** The SKUs the list's checkboxes sent, in the order shown, each once. */
export function pickedSkus(form: Readonly<Record<string, string>>): string[] {
  const picked = Object.entries(form)
    .filter(([name]) => /^pick\.\d{1,4}$/.test(name))
    .sort(([a], [b]) => Number(a.slice(5)) - Number(b.slice(5)))
    .map(([, sku]) => sku);
  return [...new Set(picked)];
}

/** A line as the confirmation step's form carries it: one field, so that no SKU's characters can split it. */
const CarriedLineSchema = v.strictTuple([
  IdentifierSchema,
  v.pipe(v.string(), v.maxLength(64)),
  v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)),
  v.boolean(),
]);

export function carriedLine(line: BulkLine): string {
  const carried = [line.sku, line.pricingDecisionId, line.recommendedPriceCents, line.currency, line.large];
  return Buffer.from(JSON.stringify(carried)).toString('base64url');
}

/**
 * The lines the confirmation step's form carried, those left ticked, each with whether its own large-change box was
 * ticked; or undefined when any of them is not one it wrote.
 */
export function seenLines(form: Readonly<Record<string, string>>): SeenLine[] | undefined {
  const fields = Object.entries(form).filter(([name]) => /^line\.\d{1,4}$/.test(name));
  const lines: SeenLine[] = [];
  for (const [name, text] of fields) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!v.is(CarriedLineSchema, parsed)) return undefined;
    const [sku, pricingDecisionId, recommendedPriceCents, currency, large] = parsed;
    const confirmed = large && form[`confirm.${name.slice('line.'.length)}`] === 'yes';
    lines.push({ sku, pricingDecisionId, recommendedPriceCents, currency, large, confirmed });
  }
  return lines;
}

/** The summed expected impact, a line per currency: what one quote of each selected product is expected to add. */
function totalsText(review: BulkReview): Html {
  const totals = impactTotals(review.lines);
  return html`<ul class="plain">
    ${totals.map((total) => {
      const products = (count: number) => `${count} product${count === 1 ? '' : 's'}`;
      if (total.estimated === 0) return html`<li>${total.currency}: too thin to say for ${products(total.tooThin)}</li>`;
      const thin = total.tooThin > 0 ? `; too thin to say for ${products(total.tooThin)}` : '';
      const month =
        total.perMonthProducts === 0
          ? ''
          : html`; about <strong>${expectedImpact(total.perMonthCents, total.currency)} a month</strong> at the recent quote rates of
              ${total.perMonthProducts === total.estimated ? 'them' : products(total.perMonthProducts)}`;
      return html`<li>
        <strong>${expectedImpact(total.expectedMarginChangeCents, total.currency)}</strong> per quote of each of
        ${products(total.estimated)}${month}${thin}
      </li>`;
    })}
  </ul>`;
}

/** A line whose approval would replace one still under way: shown unticked until a person ticks it. */
function heldBack(line: BulkLine): boolean {
  return line.earlier === 'waiting' || line.earlier === 'pending';
}

/** Why a line is ticked or not, and what it needs: a large change its own box confirms, an earlier approval it would overtake. */
function checksCell(line: BulkLine, index: number, confirmPct: number): Html {
  const notes = [
    line.earlier === 'waiting' ? 'An earlier approval waits for a second approver: this one would replace it.' : '',
    line.earlier === 'pending' ? 'Its last approval is still being written back: this one would replace it.' : '',
    line.earlier === 'seconds' ? 'Seconds the approval of this price that waits for a second approver.' : '',
    line.waits && line.earlier !== 'seconds' ? 'Waits for a second approver.' : '',
  ].filter(Boolean);
  const large = line.large
    ? html`<span class="confirm-large">
        <input id="confirm-${index}" name="confirm.${index}" type="checkbox" value="yes" />
        <label for="confirm-${index}">Confirm the large change of ${line.sku} (past ${confirmPct}%)</label>
      </span>`
    : html``;
  const status = line.large || heldBack(line) ? 'checks status status-pending' : 'checks';
  return html`<td data-label="Checks" class="${status}">${notes.length === 0 && !line.large ? 'None' : notes.join(' ')} ${large}</td>`;
}

/** Each line with its own tick: a line with an earlier approval still under way starts unticked. */
function linesTable(review: BulkReview): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Products to approve">
    <table class="data recommendations bulk-lines">
      <caption>
        Each ticked product is approved at its recommended price
      </caption>
      <thead>
        <tr>
          <th scope="col" class="pick">Approve</th>
          <th scope="col">SKU</th>
          <th scope="col" class="number">Current price</th>
          <th scope="col" class="number">Price to approve</th>
          <th scope="col" class="number">Change</th>
          <th scope="col" class="number">Expected impact / quote</th>
          <th scope="col">Checks</th>
        </tr>
      </thead>
      <tbody>
        ${review.lines.map(
          (line, index) =>
            html`<tr>
              <td class="pick" data-label="Approve">
                <input
                  type="checkbox"
                  name="line.${index}"
                  value="${carriedLine(line)}"
                  aria-label="${`Approve ${line.sku}`}"
                  ${heldBack(line) ? html`` : html` checked`}
                />
              </td>
              <th scope="row"><a href="${productPath(line.sku)}">${line.sku}</a></th>
              <td class="number" data-label="Current price">${money(line.currentPriceCents, line.currency)}</td>
              <td class="number" data-label="Price to approve">${money(line.recommendedPriceCents, line.currency)}</td>
              <td class="number" data-label="Change">${signedPct(line.changePct)}</td>
              <td class="number" data-label="Expected impact / quote">
                ${line.expectedMarginChangeCents === undefined ? 'too thin' : expectedImpact(line.expectedMarginChangeCents, line.currency)}
                ${
                  line.expectedMarginChangePerMonthCents === undefined
                    ? ''
                    : html`<br /><span class="hint">${expectedImpact(line.expectedMarginChangePerMonthCents, line.currency)} a month</span>`
                }
              </td>
              ${checksCell(line, index, review.confirmPct)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function secondApproverText(waiting: number): string {
  if (waiting === 0) return 'not needed';
  return `needed for ${waiting}: ${waiting === 1 ? 'it waits' : 'they wait'} until another person approves the same price`;
}

export interface ConfirmationInput {
  readonly review: BulkReview;
  readonly bulkId: string;
  readonly csrfToken: string;
  /** The list's query string, to go back to the same filtered list. */
  readonly back: string;
}

/** Back to the list as it was, the page and the selection kept: each SKU the step showed is ticked there again. */
function cancelLink(back: string, review: BulkReview): string {
  const query = new URLSearchParams(listLink(back).split('?')[1] ?? '');
  const after = new URLSearchParams(back).get('after');
  if (after) query.set('after', after);
  for (const sku of [...review.lines.map((line) => line.sku), ...review.skipped.map((skip) => skip.sku)]) query.append('picked', sku);
  return `${listLink('')}?${query.toString()}`;
}

/**
 * The step between selecting and approving: what each approval will be, the selection's summed expected impact, and a
 * tick per line to leave any out. A large change is approved only with its own box; left unconfirmed, the others are
 * approved and it stays ticked for one more review.
 */
export function bulkConfirmationView(input: ConfirmationInput): PageView {
  const { review } = input;
  const count = review.lines.length;
  const earlier = review.lines.filter(heldBack).length;
  const skipped =
    review.skipped.length === 0
      ? ''
      : html`<h2>Left out</h2>
          <ul>
            ${review.skipped.map((skip) => html`<li><a href="${productPath(skip.sku)}">${skip.sku}</a>: ${skip.reason}</li>`)}
          </ul>`;
  const cancel = html`<p><a href="${cancelLink(input.back, review)}">Cancel: back to the list, the selection kept</a></p>`;
  const form =
    count === 0
      ? html`<p>None of the selected products can be approved.</p>
          ${cancel}`
      : html`<form class="approve" method="post" action="${listLink('')}">
          <input type="hidden" name="_csrf" value="${input.csrfToken}" />
          <input type="hidden" name="_action" value="approve" />
          <input type="hidden" name="bulkId" value="${input.bulkId}" />
          <input type="hidden" name="back" value="${input.back}" />
          ${linesTable(review)}
          <p class="hint">
            Untick a product to leave it out. One approval per ticked product, each held to the same rules as approving it on its own page;
            a large change left unconfirmed is not approved, and the others are.
          </p>
          <button type="submit">Approve the ticked products</button>
          ${cancel}
        </form>`;
  const body = html`<p class="breadcrumb"><a href="${listLink(input.back)}">Recommendations</a></p>
    <h1>Confirm approving ${count} product${count === 1 ? '' : 's'}</h1>
    ${facts('The selection', [
      ['Products', String(count)],
      ['Expected impact', totalsText(review)],
      ['Large changes', String(review.lines.filter((line) => line.large).length)],
      ['Second approver', secondApproverText(review.lines.filter((line) => line.waits && line.earlier !== 'seconds').length)],
      ...(earlier > 0
        ? ([['Unticked', `${earlier}: an earlier approval of each is still under way; tick it to replace that approval`]] as const)
        : []),
    ])}
    ${skipped} ${form}`;
  return { title: 'Confirm bulk approval · Recommendations', body };
}

/** A selection or a confirmation refused whole: nothing was approved. */
function refusedView(message: string, back: string): ActionOutcome {
  const body = html`<p class="breadcrumb"><a href="${listLink(back)}">Recommendations</a></p>
    <h1>Nothing was approved</h1>
    ${alert('error', message)}
    <p><a href="${listLink(back)}">Back to the list</a></p>`;
  return { kind: 'render', status: 422, view: { title: 'Bulk approval refused · Recommendations', body } };
}

async function workspaceOf(ctx: ConsoleContext) {
  const workspace = await getWorkspace(ctx.user.workspaceId);
  if (!workspace) throw new Error(`The signed-in user's workspace ${ctx.user.workspaceId} does not exist.`);
  return workspace;
}

/** How long the approvals may run: the route's timeout, less what the request has spent already. */
function remainingMs(ctx: ConsoleContext): number {
  return consoleRouteById('consoleBulkApprove').timeoutSeconds * 1000 - (Date.now() - ctx.nowMs);
}

/** A refusal of the whole, as the page says it; anything else is the router's to answer. */
function refusalOf(error: unknown): string {
  if (error instanceof ApiError && error.status < 500) return error.message;
  throw error;
}

/** Both steps need what a single approval needs: the pricing role, and the overview feature. */
export const bulkActions: Readonly<Record<string, PageAction>> = {
  review: {
    role: 'pricing',
    feature: 'overview',
    async run(ctx, form) {
      const back = form.back ?? '';
      const skus = pickedSkus(form);
      if (!skus.every((sku) => v.is(IdentifierSchema, sku))) return refusedView('The selection names no such product.', back);
      try {
        checkSelectionSize(skus.length);
        const review = await reviewSelection(await workspaceOf(ctx), skus, { approverId: ctx.user.userId, nowMs: ctx.nowMs });
        return { kind: 'show', view: bulkConfirmationView({ review, bulkId: newBulkId(), csrfToken: ctx.csrfToken, back }) };
      } catch (error) {
        return refusedView(refusalOf(error), back);
      }
    },
  },
  approve: {
    role: 'pricing',
    feature: 'overview',
    async run(ctx, form) {
      const back = form.back ?? '';
      const lines = seenLines(form);
      if (!lines || !form.bulkId) return refusedView('This confirmation is not one the console wrote: select the products again.', back);
      if (lines.length === 0) return refusedView('No product was left ticked: nothing was approved.', back);
      try {
        const approver = consoleApprover(ctx.user, await workspaceOf(ctx));
        const options = { bulkId: form.bulkId, confirmLarge: form.confirmLarge === 'yes', now: new Date(ctx.nowMs) };
        // Every approval of the round has ended, and its result is kept for a later send, before this answers.
        const round = await approveRound(approver, lines, { ...options, remainingMs: remainingMs(ctx) });
        return { kind: 'show', view: bulkResultsView({ ...round, back, csrfToken: ctx.csrfToken }) };
      } catch (error) {
        return refusedView(refusalOf(error), back);
      }
    },
  },
};
