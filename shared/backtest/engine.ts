// The backtest's one door to the pricing engine: the bands and win model it would have fitted, its chance of winning, its price.
import { combineBands, computeCategoryBands, poolWinModels, recencyWeight } from '#shared/pricing/bands.ts';
import {
  assembleLineBands,
  type Band,
  type CategoryBands,
  type HistoryLine,
  type LineBands,
  type LineInputs,
  type PricedLine,
  type WinModel,
} from '#shared/pricing/model.ts';
import { priceLine } from '#shared/pricing/price-line.ts';
import type { PricingSettings } from '#shared/pricing/settings.ts';
import { segmentWinLifts } from '#shared/pricing/win-lift.ts';
import { fitWinModel, lineWinProbability, winProbability, type WinSample } from '#shared/pricing/win-model.ts';

export type { CategoryBands, HistoryLine, LineBands, LineInputs, PricedLine, WinModel, WinSample };

/** The engine as it would have stood at a moment: every category's bands and win models, and the workspace band. */
export interface EngineState {
  readonly categories: ReadonlyMap<string, CategoryBands>;
  readonly workspaceBand: Band | undefined;
  /** Each segment's win lift, as the bands job stores it beside the workspace band. */
  readonly winLifts?: ReadonlyMap<string, number>;
}

/** The recency weight of a line at the cut-off, as the engine's bands weigh it. */
export function evidenceWeight(atMs: number, asOfMs: number, settings: PricingSettings): number {
  return recencyWeight(atMs, asOfMs, settings.halfLifeDays);
}

/**
 * What the bands job would have computed at asOfMs from these lines, category by category, with the products' list
 * markups (list price over cost) as it reads them; then the win models' slopes pooled across the categories, and the
 * workspace band combined from them.
 */
export function engineAt(
  linesByCategory: ReadonlyMap<string, readonly HistoryLine[]>,
  listMarkups: ReadonlyMap<string, number>,
  settings: PricingSettings,
  asOfMs: number,
): EngineState {
  const categories = new Map<string, CategoryBands>();
  for (const [category, lines] of linesByCategory) categories.set(category, computeCategoryBands(lines, settings, asOfMs, listMarkups));
  const pooled = poolWinModels(new Map([...categories].map(([category, bands]) => [category, bands.segments])));
  for (const [category, segments] of pooled) {
    const bands = categories.get(category);
    if (bands) categories.set(category, { ...bands, segments });
  }
  const parts = [...categories.values()].flatMap((bands) => (bands.category ? [bands.category] : []));
  const winLifts = segmentWinLifts(new Map([...categories].map(([category, bands]) => [category, bands.segments])), settings);
  return { categories, workspaceBand: combineBands(parts, asOfMs, settings), winLifts };
}

/** The bands on a line's path, read from the engine's state as a price call reads them from the table. */
export function bandsForLine(
  engine: EngineState,
  line: {
    readonly category: string;
    readonly productSku: string;
    readonly segment: string;
    readonly customerExternalId: string | undefined;
  },
): LineBands {
  const category = engine.categories.get(line.category);
  return assembleLineBands({
    sku: line.productSku,
    customerBands: line.customerExternalId ? category?.customerSkus.get(line.customerExternalId) : undefined,
    segmentSku: category?.segmentSkus.get(line.productSku)?.get(line.segment),
    segmentCategory: category?.segments.get(line.segment),
    category: category?.category,
    workspace: engine.workspaceBand,
    workspaceWinLift: engine.winLifts?.get(line.segment),
  });
}

/** The engine's own chance of winning the line at `margin`, from the bands it prices with; undefined where it has no win model. */
export function engineWinProbability(
  bands: LineBands,
  line: { readonly quantity: number; readonly customerExternalId: string | undefined },
  margin: number,
  listMarkup: number | undefined,
): number | undefined {
  return lineWinProbability(bands, line.quantity, margin, listMarkup, line.customerExternalId !== undefined);
}

/** A logistic model of winning in margin alone, over every closed quote of the workspace: the fallback where the engine has none. */
export function fitWorkspaceWinModel(samples: readonly WinSample[], settings: PricingSettings): WinModel | undefined {
  return fitWinModel(samples, settings);
}

export function workspaceWinProbability(model: WinModel, margin: number): number {
  return winProbability(model, margin);
}

/** The engine's price for one line. */
export function enginePrice(inputs: LineInputs, bands: LineBands, settings: PricingSettings): PricedLine {
  return priceLine(inputs, bands, settings);
}
