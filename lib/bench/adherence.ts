// Adherence on the local stack: what folding drained quote lines into the aggregates costs per line, and what a report costs.
import { type AttributedLine, contributionOf, type QuotePart, sumContributions } from '#shared/adherence/attribution.ts';
import { readAdherenceReport } from '#shared/adherence/repository.ts';
import { applyAdherence } from '#shared/pipeline/adherence-fold.ts';
import { CapacityLedger, withCapacityLedger } from '#platform/meter.ts';
import { createWorkspaceWithKeys } from '#lib/local/seed.ts';

const CATEGORIES = 20;
const SEGMENTS = 5;
const REASONS = 8;
const CONFIDENCES = ['high', 'medium', 'low'] as const;
const MONTHS = 12;
/** Quote lines per chunk, as a connector stages quotes of a few lines in calls of a hundred or so quotes. */
const LINES_PER_CHUNK = 500;
const LINES_PER_QUOTE = 5;

export interface AdherenceFigures {
  readonly quoteLines: number;
  readonly aggregateItems: number;
  /** Folding: per drained quote line, the aggregates' share (decision reads and attributions are in the catalogue). */
  readonly foldWriteUnitsPerLine: number;
  readonly reports: ReadonlyArray<{ readonly by: string; readonly readUnits: number; readonly ms: number; readonly groups: number }>;
}

function month(index: number): string {
  return new Date(Date.UTC(2026, index, 1)).toISOString().slice(0, 7);
}

/** A year of quotes spread over categories, segments, reasons and confidences, some followed, some overridden. */
function quoteParts(lines: number): QuotePart[] {
  const quotes: QuotePart[] = [];
  for (let start = 0; start < lines; start += LINES_PER_QUOTE) {
    const q = start / LINES_PER_QUOTE;
    const quoteLines = Array.from(
      { length: Math.min(LINES_PER_QUOTE, lines - start) },
      (_, offset): AttributedLine & { category: string } => {
        const i = start + offset;
        const guided = i % 10 !== 0;
        const guidedCents = 1000 + (i % 97);
        const quotedCents = guidedCents + (((i * 7) % 5) - 2) * 30;
        return {
          sku: `SKU-${i % 500}`,
          quantity: 1 + (i % 7),
          quotedCents,
          costCents: 700,
          category: `Category ${i % CATEGORIES}`,
          reason: `reason ${i % REASONS}`,
          ...(guided
            ? {
                band: quotedCents > guidedCents * 1.02 ? 'above' : quotedCents < guidedCents * 0.98 ? 'below' : 'within',
                decisionId: `pd_${i}`,
                guidedCents,
                confidence: CONFIDENCES[i % CONFIDENCES.length],
              }
            : { band: 'unguided' }),
        };
      },
    );
    quotes.push({
      quoteId: `Q-${q}`,
      month: month(Math.floor((start / lines) * MONTHS)),
      outcome: q % 3 === 0 ? 'won' : q % 3 === 1 ? 'lost' : 'open',
      segment: `segment ${q % SEGMENTS}`,
      rate: 1,
      lines: quoteLines,
    });
  }
  return quotes;
}

export async function measureAdherence(options: { quoteLines: number }): Promise<AdherenceFigures> {
  const { workspaceId } = await createWorkspaceWithKeys('Adherence Bench');
  const quotes = quoteParts(options.quoteLines);
  const fold = new CapacityLedger();
  const items = new Set<string>();
  const quotesPerChunk = LINES_PER_CHUNK / LINES_PER_QUOTE;
  for (let start = 0, chunk = 0; start < quotes.length; start += quotesPerChunk, chunk++) {
    const delta = sumContributions(quotes.slice(start, start + quotesPerChunk).map((quote) => contributionOf(quote, undefined)));
    for (const item of Object.keys(delta)) items.add(item);
    await withCapacityLedger(fold, () =>
      applyAdherence({ workspaceId, attributions: [], delta }, 'bench', `CHUNK#${String(chunk).padStart(10, '0')}#000`),
    );
  }
  const period = { fromMonth: month(0), toMonth: month(MONTHS - 1) };
  const reports = [];
  for (const by of [undefined, 'segment', 'category', 'reason'] as const) {
    const ledger = new CapacityLedger();
    const started = performance.now();
    const report = await withCapacityLedger(ledger, () => readAdherenceReport(workspaceId, period, by));
    reports.push({ by: by ?? 'overall', readUnits: ledger.readUnits, ms: performance.now() - started, groups: report.groups.length });
  }
  return {
    quoteLines: options.quoteLines,
    aggregateItems: items.size,
    foldWriteUnitsPerLine: fold.writeUnits / options.quoteLines,
    reports,
  };
}

export function adherenceLines(figures: AdherenceFigures): string[] {
  return [
    `  fold per drained line   ${figures.foldWriteUnitsPerLine.toFixed(3)} WRU (${figures.aggregateItems} aggregate items: ${MONTHS} months × ${CATEGORIES} categories, ${SEGMENTS} segments, ${REASONS} reasons, ${CONFIDENCES.length} confidences; ${LINES_PER_CHUNK} lines a chunk)`,
    ...figures.reports.map(
      (report) =>
        `  a year's report ${report.by.padEnd(9)} ${report.readUnits.toFixed(1).padStart(5)} RRU, ${report.ms.toFixed(0)} ms (${figures.quoteLines.toLocaleString('en-US')} quote lines; overall, confidence${report.by === 'overall' ? '' : ` and ${report.groups} groups`})`,
    ),
  ];
}

// `node lib/bench/adherence.ts`: this section alone (BENCH_ADHERENCE_LINES quote lines, 100,000 by default).
if (import.meta.main) {
  const { startLocalStack } = await import('#lib/local/stack.ts');
  const { logger } = await import('#platform/observability.ts');
  logger.setLogLevel('WARN');
  const stack = await startLocalStack({ port: 0 });
  try {
    const figures = await measureAdherence({ quoteLines: Number(process.env.BENCH_ADHERENCE_LINES ?? 100_000) });
    for (const line of adherenceLines(figures)) console.log(line);
    console.log(JSON.stringify(figures));
  } finally {
    await stack.stop();
  }
}
