// `admin adherence report`: whether sellers followed the price guidance and what it earned, as text, JSON or CSV.
import type { Dimension } from '#shared/adherence/attribution.ts';
import {
  type AdminCommand,
  checkReportFormat,
  type Execute,
  existingWorkspace,
  type ReportArguments,
  UsageError,
} from '#lib/admin/command.ts';

export const adherenceCommands: readonly AdminCommand[] = [
  {
    name: 'adherence report',
    usage: `  adherence report --workspace W [--from D] [--to D] [--by segment|category|reason] [--csv]
                                        guidance followed or overridden, and what each earned, over whole UTC
                                        months (D: YYYY-MM-DD or YYYY-MM; the last 12 months by default)`,
    options: ['workspace', 'from', 'to', 'by', 'csv'],
    prepare: (args) => prepareAdherenceReport({ ...args.values, workspace: args.required('workspace') }),
  },
];

export const adherenceGroupings = ['segment', 'category', 'reason'] as const satisfies readonly Dimension[];

/** Checks the period and grouping (a `UsageError`: exit 2) before anything is read. */
async function prepareAdherenceReport(args: ReportArguments): Promise<Execute> {
  checkReportFormat(args);
  const by = args.by as (typeof adherenceGroupings)[number] | undefined;
  if (by !== undefined && !adherenceGroupings.includes(by)) {
    throw new UsageError(`invalid --by ${JSON.stringify(by)}: expected ${adherenceGroupings.join(', ')}`);
  }
  const { reportPeriod, reportCsv, reportText } = await import('#shared/adherence/report.ts');
  const period = reportPeriod(args.from, args.to, new Date());
  if (typeof period === 'string') throw new UsageError(`--from/--to: ${period}`);
  return async () => {
    await existingWorkspace(args.workspace);
    const { readAdherenceReport } = await import('#shared/adherence/repository.ts');
    const report = await readAdherenceReport(args.workspace, period, by);
    return { json: report, text: args.csv ? reportCsv(report) : reportText(report) };
  };
}
