// The backtest's one door to the pricing engine: the bands and win model it would have fitted, and the price it would have given.
import { combineBands, computeCategoryBands, recencyWeight } from '../pricing/bands.ts';
import type { Band, CategoryBands, HistoryLine, LineBands, LineInputs, PricedLine, WinModel } from '../pricing/model.ts';
import { priceLine } from '../pricing/price-line.ts';
import type { PricingSettings } from '../pricing/settings.ts';
import { fitWinModel, winProbability, type WinSample } from '../pricing/win-model.ts';

export type { CategoryBands, HistoryLine, LineBands, LineInputs, PricedLine };

/** One closed quote line as the win model sees it: where it was quoted, to whom, how much, at what margin, and the outcome. */
export interface WinEvidence {
  readonly quoteId: string;
  readonly category: string;
  readonly segment: string;
  readonly customerExternalId: string | undefined;
  readonly productSku: string;
  readonly quantity: number;
  /** The line's quantity over the median quantity of its segment × SKU band (else its segment's) at the cut-off; 1 when unknown. */
  readonly relativeQuantity: number;
  /** The product's list price over its cost, today; undefined when unknown. */
  readonly listMarkup: number | undefined;
  readonly margin: number;
  readonly won: boolean;
  /** Recency weight at the cut-off, as the engine weighs its evidence. */
  readonly weight: number;
}

/** What a prediction needs of a line besides the margin: the same fields as the evidence, less the outcome. */
export type WinContext = Omit<WinEvidence, 'quoteId' | 'margin' | 'won' | 'weight'>;

/** Which model answered: the one the engine itself would have used for the line, one pooled over the workspace, or the win rate. */
export type WinModelLevel = 'engine' | 'workspace' | 'base_rate';

export interface WinPredictor {
  readonly probability: (line: WinContext, margin: number) => number;
  readonly level: (line: WinContext) => WinModelLevel;
  /** Whether any fitted model (not the win rate alone) stands behind the predictions. */
  readonly fitted: boolean;
}

/** The recency weight of a line at the cut-off, as the engine's bands weigh it. */
export function evidenceWeight(atMs: number, asOfMs: number, settings: PricingSettings): number {
  return recencyWeight(atMs, asOfMs, settings.halfLifeDays);
}

const toSample = (line: WinEvidence): WinSample => ({ quoteId: line.quoteId, margin: line.margin, won: line.won, weight: line.weight });

/*
 * The engine's win model of one category, fitted and read. These two functions are the whole of what the backtest
 * knows of how the engine fits it: today one logistic model per segment within the category (the bands job's rule).
 * WinEvidence carries the segment, product, customer and quantity as well, for a model with terms in them.
 */
type CategoryFit = ReadonlyMap<string, WinModel>;

function fitCategory(evidence: readonly WinEvidence[], settings: PricingSettings): CategoryFit | undefined {
  const bySegment = new Map<string, WinEvidence[]>();
  for (const line of evidence) {
    const lines = bySegment.get(line.segment);
    if (lines) lines.push(line);
    else bySegment.set(line.segment, [line]);
  }
  const models = new Map<string, WinModel>();
  for (const [segment, lines] of bySegment) {
    const model = fitWinModel(lines.map(toSample), settings);
    if (model) models.set(segment, model);
  }
  return models.size > 0 ? models : undefined;
}

/** P(win) at the margin, or undefined where the category's fit says nothing of the line. */
function categoryProbability(fit: CategoryFit, line: WinContext, margin: number): number | undefined {
  const model = fit.get(line.segment);
  return model ? winProbability(model, margin) : undefined;
}

/**
 * The win model the engine would have fitted on this evidence, category by category; where it says nothing of a line,
 * one logistic model pooled over the workspace's closed quotes, and without enough of those the weighted win rate.
 * The engine itself uses only the first: the fallbacks give every scored line a prediction, and the report counts
 * how many lines each answered.
 */
export function fitWinPredictor(evidence: readonly WinEvidence[], settings: PricingSettings): WinPredictor {
  const byCategory = new Map<string, WinEvidence[]>();
  let sumW = 0;
  let wonW = 0;
  for (const line of evidence) {
    const lines = byCategory.get(line.category);
    if (lines) lines.push(line);
    else byCategory.set(line.category, [line]);
    sumW += line.weight;
    if (line.won) wonW += line.weight;
  }
  const fits = new Map<string, CategoryFit>();
  for (const [category, lines] of byCategory) {
    const fit = fitCategory(lines, settings);
    if (fit) fits.set(category, fit);
  }
  const pooled = fitWinModel(evidence.map(toSample), settings);
  const winRate = sumW > 0 ? wonW / sumW : 0.5;
  const engineProbability = (line: WinContext, margin: number) => {
    const fit = fits.get(line.category);
    return fit ? categoryProbability(fit, line, margin) : undefined;
  };
  return {
    probability: (line, margin) => engineProbability(line, margin) ?? (pooled ? winProbability(pooled, margin) : winRate),
    // Asked at a margin the engine's models all cover; only whether one answers matters.
    level: (line) => (engineProbability(line, 0) !== undefined ? 'engine' : pooled ? 'workspace' : 'base_rate'),
    fitted: fits.size > 0 || pooled !== undefined,
  };
}

/** Every band of one category as the bands job would have computed it at asOfMs from these lines. */
export function categoryBandsAt(lines: readonly HistoryLine[], settings: PricingSettings, asOfMs: number): CategoryBands {
  return computeCategoryBands(lines, settings, asOfMs);
}

/** The workspace band from the categories' bands, as the bands job combines it. */
export function workspaceBandOf(bands: readonly Band[], asOfMs: number, settings: PricingSettings): Band | undefined {
  return combineBands(bands, asOfMs, settings);
}

/** The bands on a line's path, read from its category's bands as a price call reads them from the table. */
export function bandsForLine(
  category: CategoryBands | undefined,
  workspace: Band | undefined,
  line: { readonly productSku: string; readonly segment: string; readonly customerExternalId: string | undefined },
): LineBands {
  const segmentCategory = category?.segments.get(line.segment);
  const customerSku = line.customerExternalId ? category?.customerSkus.get(line.customerExternalId)?.get(line.productSku) : undefined;
  const segmentSku = category?.segmentSkus.get(line.productSku)?.get(line.segment);
  return {
    ...(customerSku ? { customerSku } : {}),
    ...(segmentSku ? { segmentSku } : {}),
    ...(segmentCategory ? { segmentCategory: segmentCategory.band } : {}),
    ...(segmentCategory?.winModel ? { winModel: segmentCategory.winModel } : {}),
    ...(category?.category ? { category: category.category } : {}),
    ...(workspace ? { workspace } : {}),
  };
}

/** The engine's price for one line. */
export function enginePrice(inputs: LineInputs, bands: LineBands, settings: PricingSettings): PricedLine {
  return priceLine(inputs, bands, settings);
}
