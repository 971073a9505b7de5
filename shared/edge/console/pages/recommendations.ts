// The console's product page: one product's recommendation, its margins and approval history, and where a pricing manager approves.
import { approvePrice } from '#shared/approvals/approve.ts';
import { ConfirmationRequired, RecommendationMoved } from '#shared/approvals/rules.ts';
import * as v from 'valibot';
import { ApiError } from '#platform/errors.ts';
import { minorUnitDigits, toDecimalAmount } from '#shared/pricing/currency.ts';
import { resendAction } from './product-resend.ts';
import { LIST_PATH, productPath } from './recommendation-paths.ts';
import { type MarginPoint, readProductMargins } from '#shared/recommendations/margins.ts';
import { changePct } from '#shared/recommendations/overview.ts';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { findRecommendation } from '#shared/recommendations/repository.ts';
import { priceWorth } from '#shared/recommendations/price-worth.ts';
import type { PricedRecommendation, Recommendation, RecommendationBasis } from '#shared/recommendations/schema.ts';
import type { ApprovalHistoryEntry } from '#shared/approvals/history.ts';
import { getWorkspace } from '#shared/workspaces/repository.ts';
import type { Workspace } from '#shared/workspaces/schema.ts';
import { timeChart } from '#edge/console/time-chart.ts';
import { alert, facts, moment, money, signedPct } from '#edge/console/formats.ts';
import { type Html, html } from '#edge/console/html.ts';
import type { ConsoleContext, ConsolePage, PageView } from '#edge/console/page.ts';
import {
  approvalNotice,
  confirmationStep,
  type ConfirmationWorth,
  consoleApprover,
  readProductApprovals,
  seenRecommendation,
  shownField,
} from '#edge/console/sections/approvals.ts';
import { basisSection, confidenceText, marginText } from '#edge/console/sections/basis.ts';
import { dataWarningsSection } from '#edge/console/sections/data-warnings.ts';
import { impactSection, signedMoney } from '#edge/console/sections/impact.ts';

export interface ProductViewInput {
  readonly sku: string;
  readonly recommendation: Recommendation | undefined;
  readonly margins: readonly MarginPoint[];
  readonly canApprove: boolean;
  readonly csrfToken: string;
  /** What the form was sent with and why it was refused; without a price the form offers the recommendation again. */
  readonly attempt?: { readonly price?: string; readonly error: string };
  /** The approval history section, read beside the page. */
  readonly approvals?: Html;
  /** Why a failed write-back was not sent again, said above the history that offered it. */
  readonly resendError?: string;
  /** The newest approval of the SKU: when it is over this recommendation, the form holds its price. */
  readonly newestApproval?: ApprovalHistoryEntry;
}

/** The approval the form starts from: the newest, when it approved this very recommendation and still stands. */
function standingApproval(input: ProductViewInput, recommendation: PricedRecommendation): ApprovalHistoryEntry | undefined {
  const newest = input.newestApproval;
  if (!newest || newest.recommendation.pricing_decision_id !== recommendation.pricingDecisionId) return undefined;
  return newest.status === 'published' || newest.status === 'waiting' ? newest : undefined;
}

function approveForm(input: ProductViewInput, recommendation: PricedRecommendation): Html {
  if (!input.canApprove) {
    return html`<p>Approving a price needs the <strong>pricing</strong> role.</p>`;
  }
  const { currency } = recommendation;
  const digits = minorUnitDigits(currency);
  const approved = standingApproval(input, recommendation);
  // After an approval the form holds the approved price, so that submitting it again cannot put the recommended one over it.
  const price =
    input.attempt?.price ??
    (approved ? approved.price.toFixed(digits) : toDecimalAmount(recommendation.recommendedPriceCents, currency).toFixed(digits));
  const error = input.attempt?.error;
  const standing = approved
    ? html`<p class="approved-price" id="approve-standing">
        Approved:
        <strong>${approved.price.toFixed(digits)} ${currency}</strong
        >${approved.status === 'waiting' ? ', waiting for a second approver' : ''} (recommended
        ${money(recommendation.recommendedPriceCents, currency)}).
      </p>`
    : '';
  const describedBy = `${error ? 'approve-error ' : ''}${approved ? 'approve-standing ' : ''}approve-hint`;
  return html`<form class="approve" method="post" action="${productPath(input.sku)}">
    <input type="hidden" name="_csrf" value="${input.csrfToken}" />
    <input type="hidden" name="_action" value="approve" />
    <input type="hidden" name="shown" value="${shownField(recommendation)}" />
    ${standing}
    <div class="field">
      <label for="approve-price">Price to approve (${currency})</label>
      <input
        id="approve-price"
        name="price"
        type="text"
        inputmode="decimal"
        required
        value="${price}"
        ${error ? html` aria-invalid="true" aria-describedby="${describedBy}" autofocus` : html` aria-describedby="${describedBy}"`}
      />
      ${error ? html`<p class="error field-error" role="alert" id="approve-error">${error}</p>` : ''}
      <p class="hint" id="approve-hint">
        Between the floor and the ceiling above. Every connector that takes write-backs receives it as a pending task.
      </p>
    </div>
    <button type="submit">Approve price</button>
  </form>`;
}

/** The realised margins on a true time axis, with the base band and the target drawn when the basis is stored. */
function marginsChart(sku: string, margins: readonly MarginPoint[], basis?: RecommendationBasis): Html {
  if (margins.length === 0) return html`<p>No orders of this product yet: its realised margins appear once orders are synced.</p>`;
  const pct = (margin: number) => Math.round(margin * 1000) / 10;
  const guides = basis
    ? {
        target: { value: pct(basis.band.target), label: `Target ${marginText(basis.band.target)}` },
        band: {
          low: pct(basis.band.floor),
          high: pct(basis.band.stretch),
          label: `Band p20–p90, ${marginText(basis.band.floor)} to ${marginText(basis.band.stretch)}`,
        },
      }
    : {};
  const first = margins[0]?.month;
  const last = margins[margins.length - 1]?.month;
  const against = basis
    ? ` Against a target of ${marginText(basis.band.target)} and a band of ${marginText(basis.band.floor)} to ${marginText(basis.band.stretch)}.`
    : '';
  return timeChart({
    id: 'margins-chart',
    title: `Realised margin of ${sku} by month`,
    description: `Margin of the orders of ${sku} in each UTC month with orders, from ${first} to ${last}: ${margins
      .map((point) => `${point.month}: ${point.marginPct.toFixed(1)}%`)
      .join('; ')}.${against}`,
    points: margins.map((point) => ({ label: point.month, value: point.marginPct })),
    format: (value) => `${value.toFixed(1)}%`,
    labelHeading: 'Month',
    valueHeading: 'Realised margin',
    detail: { heading: 'Order lines', values: margins.map((point) => String(point.lines)) },
    ...guides,
  });
}

/** What moved the margin from its target, a row per driver. */
function driversTable(recommendation: PricedRecommendation): Html {
  if (recommendation.drivers.length === 0) return html`<p>No adjustments: the price is the target margin as it stands.</p>`;
  return html`<table class="data">
    <caption>
      What moved the margin from its target
    </caption>
    <thead>
      <tr>
        <th scope="col">Driver</th>
        <th scope="col" class="number">Points</th>
        <th scope="col">Direction</th>
      </tr>
    </thead>
    <tbody>
      ${recommendation.drivers.map(
        (driver) =>
          html`<tr>
            <th scope="row">${driver.label}</th>
            <td class="number">${driver.points.toFixed(2)}</td>
            <td>${driver.direction}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The bounds an approval is held to. */
function guardrails(recommendation: PricedRecommendation): Html {
  const { currency } = recommendation;
  return html`${facts('The bounds an approved price must keep', [
      ['Floor', money(recommendation.floorCents, currency)],
      ['Ceiling', recommendation.ceilingCents === undefined ? 'none' : money(recommendation.ceilingCents, currency)],
    ])}
    <p class="hint">The floor is the largest of the floor price, MAP and the minimum-margin price.</p>`;
}

/** The expected change in margin per quote, as the summary states it. */
function impactSummary(recommendation: PricedRecommendation): string {
  const { impact } = recommendation;
  if (!impact) return 'not estimated yet';
  if (impact.status === 'too_thin') return 'too thin to say';
  const held = recommendation.warnings?.length ? ', not ranked until the data is checked' : '';
  return `${signedMoney(impact.expectedMarginChangeCents, recommendation.currency)} margin per quote${held}`;
}

function pricedBody(input: ProductViewInput, recommendation: PricedRecommendation, heading: Html): Html {
  const { currency, basis } = recommendation;
  const withMargin = (cents: number, margin: number | null | undefined) =>
    basis ? html`${money(cents, currency)} <span class="subtitle">(margin ${marginText(margin)})</span>` : money(cents, currency);
  const held = recommendation.warnings?.length ? html`<strong class="check-data">check the data</strong>: ` : '';
  // A kept price says so first: the manager approves no change, whatever a guardrail moved.
  const keep = basis?.keep === true || recommendation.recommendedPriceCents === recommendation.currentPriceCents;
  const recommended = withMargin(recommendation.recommendedPriceCents, basis?.margin);
  const change = signedPct(changePct(recommendation.recommendedPriceCents, recommendation.currentPriceCents));
  return html`${heading} ${dataWarningsSection(recommendation)}
    <div class="product-facts">
      ${facts('The recommendation', [
        ['Cost', basis ? money(basis.costCents, currency) : 'not stored with this recommendation'],
        ['Current price', withMargin(recommendation.currentPriceCents, basis?.currentMargin)],
        ['Recommended price', html`${held}${keep ? html`<strong>Keep</strong> ${recommended}` : recommended}`],
        [
          'Change',
          keep && recommendation.recommendedPriceCents === recommendation.currentPriceCents ? 'none: keep the current price' : change,
        ],
        ['Expected impact', impactSummary(recommendation)],
        ['Confidence', confidenceText(recommendation)],
        ['Category', recommendation.category ?? '—'],
        ['Updated', moment(recommendation.updatedAt)],
      ])}
    </div>
    <h2>Why this price</h2>
    <p class="rationale">${recommendation.rationale}</p>
    <div class="product-facts">${basisSection(recommendation)}</div>
    <h3>Drivers</h3>
    ${driversTable(recommendation)}
    <h3>Guardrails</h3>
    ${guardrails(recommendation)}
    <h2>Expected impact</h2>
    ${impactSection(recommendation.impact, currency)}
    <h2>Realised margins</h2>
    ${marginsChart(input.sku, input.margins, basis)}
    <h2>Approve a price</h2>
    ${approveForm(input, recommendation)}
    <h2>Approval history</h2>
    ${alert('error', input.resendError)} ${input.approvals ?? ''}`;
}

/** A product's page: pure, so that what it shows and when it offers the form is unit-tested. */
export function productView(input: ProductViewInput): PageView {
  const { recommendation, sku } = input;
  if (!recommendation) {
    return {
      title: `Unknown product ${sku}`,
      status: 404,
      body: html`<h1>No product ${sku}</h1>
        <p>The workspace knows no product with this SKU. <a href="${LIST_PATH}">All recommendations</a></p>`,
    };
  }
  const heading = html`<p class="breadcrumb"><a href="${LIST_PATH}">Recommendations</a></p>
    <h1>${recommendation.sku}${recommendation.name ? html` <span class="subtitle">${recommendation.name}</span>` : ''}</h1>`;
  if (recommendation.status === 'unpriced') {
    return {
      title: recommendation.sku,
      body: html`${heading}
        <p>
          Not priced: the product's cost is 0, so no margin can be priced. Current price
          ${money(recommendation.currentPriceCents, recommendation.currency)}.
        </p>
        <h2>Realised margins</h2>
        ${marginsChart(sku, input.margins)}`,
    };
  }
  return { title: `${recommendation.sku} · Recommendation`, body: pricedBody(input, recommendation, heading) };
}

/**
 * What the confirmation step shows beside a large move: the recommended price with its margin, and what the price to
 * approve is worth by the win model (one snapshot of the product, read only when a confirmation is asked for).
 */
async function confirmationWorth(
  workspace: Workspace,
  sku: string,
  refusal: ConfirmationRequired,
  nowMs: number,
): Promise<ConfirmationWorth> {
  const [recommendation, atPrice] = await Promise.all([
    findRecommendation(workspace, sku, nowMs),
    priceWorth(workspace, sku, refusal.pending.priceCents, nowMs),
  ]);
  const margin = recommendation?.status === 'priced' ? recommendation.basis?.margin : undefined;
  return {
    ...(recommendation?.status === 'priced'
      ? { recommended: { priceCents: recommendation.recommendedPriceCents, ...(margin === undefined ? {} : { margin }) } }
      : {}),
    ...(atPrice ? { atPrice } : {}),
  };
}

async function workspaceOf(ctx: ConsoleContext) {
  const workspace = await getWorkspace(ctx.user.workspaceId);
  if (!workspace) throw new Error(`The signed-in user's workspace ${ctx.user.workspaceId} does not exist.`);
  return workspace;
}

async function readProduct(ctx: ConsoleContext, attempt?: ProductViewInput['attempt'], resendError?: string): Promise<PageView> {
  const sku = ctx.params.sku ?? '';
  const workspace = await workspaceOf(ctx);
  // A SKU past the identifier bound would make a key DynamoDB refuses; no product can have one.
  const recommendation = v.is(IdentifierSchema, sku) ? await findRecommendation(workspace, sku, ctx.nowMs) : undefined;
  const margins = recommendation ? await readProductMargins(workspace.workspaceId, sku) : [];
  const resend = ctx.user.roles.includes('pricing') ? { csrfToken: ctx.csrfToken } : undefined;
  const approvals = recommendation ? await readProductApprovals(workspace.workspaceId, sku, ctx.nowMs, resend) : undefined;
  return productView({
    sku,
    recommendation,
    margins,
    ...(approvals ? { approvals: approvals.section } : {}),
    ...(approvals?.newest ? { newestApproval: approvals.newest } : {}),
    canApprove: ctx.user.roles.includes('pricing'),
    csrfToken: ctx.csrfToken,
    ...(attempt ? { attempt } : {}),
    ...(resendError ? { resendError } : {}),
  });
}

/** The form's price as a decimal, or why not: the domain checks its digits and bounds in the product's currency. */
export function readPrice(text: string | undefined): number | string {
  const trimmed = (text ?? '').trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return 'Enter the price as a decimal amount, such as 12.50.';
  const price = Number(trimmed);
  return price > 0 ? price : 'The price must be greater than 0.';
}

export const productPage: ConsolePage = {
  path: `${LIST_PATH}/{sku}`,
  read: (ctx) => readProduct(ctx),
  actions: {
    approve: {
      role: 'pricing',
      // Approving publishes to the overview, so it is refused while the feature is off, as /v1's approve is.
      feature: 'overview',
      async run(ctx, form) {
        const sku = ctx.params.sku ?? '';
        const entered = form.price ?? '';
        if (!v.is(IdentifierSchema, sku)) return { kind: 'render', status: 422, view: await readProduct(ctx) };
        const price = readPrice(entered);
        if (typeof price === 'string')
          return { kind: 'render', status: 422, view: await readProduct(ctx, { price: entered, error: price }) };
        const workspace = await workspaceOf(ctx);
        const approver = consoleApprover(ctx.user, workspace);
        try {
          // The confirmation step's form says `confirm=yes`; the approve form never does.
          const request = { sku, price, confirm: form.confirm === 'yes' };
          const approval = await approvePrice(approver, request, new Date(ctx.nowMs), undefined, seenRecommendation(form.shown, price));
          return { kind: 'redirect', location: productPath(sku), notice: approvalNotice(approval) };
        } catch (error) {
          const shown = form.shown === undefined ? {} : { shown: form.shown };
          const worth = error instanceof ConfirmationRequired ? { worth: await confirmationWorth(workspace, sku, error, ctx.nowMs) } : {};
          const confirming = confirmationStep(error, { action: productPath(sku), entered, csrfToken: ctx.csrfToken, ...shown, ...worth });
          if (confirming) return confirming;
          // Moved past the tolerance: the page shows the recommendation now, and the form offers it.
          if (error instanceof RecommendationMoved)
            return { kind: 'render', status: 422, view: await readProduct(ctx, { error: error.message }) };
          if (!(error instanceof ApiError) || error.status >= 500) throw error;
          return { kind: 'render', status: 422, view: await readProduct(ctx, { price: entered, error: error.message }) };
        }
      },
    },
    resend: resendAction((ctx, error) => readProduct(ctx, undefined, error)),
  },
};
