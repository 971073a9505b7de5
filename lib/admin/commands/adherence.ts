// `admin adherence report`: whether sellers followed the price guidance and what it earned, as text, JSON or CSV.
import type { Dimension } from '#shared/adherence/attribution.ts';
import { type AdminCommand, type Execute, UsageError } from '#lib/admin/command.ts';

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

interface AdherenceReportArguments {
  readonly workspace: string;
  readonly from?: string;
  readonly to?: string;
  readonly by?: string;
  readonly csv?: boolean;
  readonly json?: boolean;
}

export const adherenceGroupings = ['segment', 'category', 'reason'] as const satisfies readonly Dimension[];

/** Checks the period and grouping (a `UsageError`: exit 2) before anything is read. */
async function prepareAdherenceReport(args: AdherenceReportArguments): Promise<Execute> {
  if (args.csv && args.json) throw new UsageError('--csv and --json are two formats: choose one');
  const by = args.by as (typeof adherenceGroupings)[number] | undefined;
  if (by !== undefined && !adherenceGroupings.includes(by)) {
    throw new UsageError(`invalid --by ${JSON.stringify(by)}: expected ${adherenceGroupings.join(', ')}`);
  }
  const { reportPeriod, reportCsv, reportText } = await import('#shared/adherence/report.ts');
  const period = reportPeriod(args.from, args.to, new Date());
  if (typeof period === 'string') throw new UsageError(`--from/--to: ${period}`);
  return async () => {
    const { getWorkspace } = await import('#shared/workspaces/repository.ts');
    if (!(await getWorkspace(args.workspace))) throw new Error(`workspace ${args.workspace} does not exist`);
    const { readAdherenceReport } = await import('#shared/adherence/repository.ts');
    const report = await readAdherenceReport(args.workspace, period, by);
    return { json: report, text: args.csv ? reportCsv(report) : reportText(report) };
  };
}
