// `admin adherence report`: whether sellers followed the price guidance and what it earned, as text, JSON or CSV.
import type { Dimension } from '#shared/adherence/attribution.ts';

export interface AdherenceReportArguments {
  readonly workspace: string;
  readonly from?: string;
  readonly to?: string;
  readonly by?: string;
  readonly csv?: boolean;
  readonly json?: boolean;
}

export const adherenceGroupings = ['segment', 'category', 'reason'] as const satisfies readonly Dimension[];

/** Checks the period and grouping (thrown as `usageError`: exit 2) before anything is read. */
export async function prepareAdherenceReport(
  args: AdherenceReportArguments,
  usageError: (message: string) => Error,
): Promise<() => Promise<{ json: unknown; text: string }>> {
  if (args.csv && args.json) throw usageError('--csv and --json are two formats: choose one');
  const by = args.by as (typeof adherenceGroupings)[number] | undefined;
  if (by !== undefined && !adherenceGroupings.includes(by)) {
    throw usageError(`invalid --by ${JSON.stringify(by)}: expected ${adherenceGroupings.join(', ')}`);
  }
  const { reportPeriod, reportCsv, reportText } = await import('#shared/adherence/report.ts');
  const period = reportPeriod(args.from, args.to, new Date());
  if (typeof period === 'string') throw usageError(`--from/--to: ${period}`);
  return async () => {
    const { getWorkspace } = await import('#shared/workspaces/repository.ts');
    if (!(await getWorkspace(args.workspace))) throw new Error(`workspace ${args.workspace} does not exist`);
    const { readAdherenceReport } = await import('#shared/adherence/repository.ts');
    const report = await readAdherenceReport(args.workspace, period, by);
    return { json: report, text: args.csv ? reportCsv(report) : reportText(report) };
  };
}
