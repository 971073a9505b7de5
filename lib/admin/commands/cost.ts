// `admin cost report`: a workspace's cost in dollars from its ledger, as text, JSON or CSV; the arguments checked before anything is read.
import { ApiError } from '#platform/errors.ts';
import {
  type AdminCommand,
  checkReportFormat,
  type Execute,
  existingWorkspace,
  type ReportArguments,
  UsageError,
} from '#lib/admin/command.ts';

export const costCommands: readonly AdminCommand[] = [
  {
    name: 'cost report',
    usage: `  cost report --workspace W [--from D] [--to D] [--by day|route] [--csv]
                                        what the workspace cost in dollars, days as YYYY-MM-DD (UTC, today by default)`,
    options: ['workspace', 'from', 'to', 'by', 'csv'],
    prepare: (args) => prepareCostReport({ ...args.values, workspace: args.required('workspace') }),
  },
];

/**
 * Checks the range (a bad day or grouping is a `UsageError`, so the CLI exits 2 with its usage) and returns what reads
 * the ledger and renders the report.
 */
async function prepareCostReport(args: ReportArguments): Promise<Execute> {
  checkReportFormat(args);
  const { readReportRange, buildCostReport, formatCostReport, formatCostReportCsv } = await import('#shared/cost/report.ts');
  let range: ReturnType<typeof readReportRange>;
  try {
    range = readReportRange(args, Date.now());
  } catch (error) {
    if (error instanceof ApiError) throw new UsageError(`--${error.param ?? 'from'}: ${error.message}`);
    throw error;
  }
  return async () => {
    await existingWorkspace(args.workspace);
    const { readCostLedger } = await import('#shared/cost/repository.ts');
    const report = buildCostReport(args.workspace, range, await readCostLedger(args.workspace, range.from, range.to));
    return { json: report, text: args.csv ? formatCostReportCsv(report) : formatCostReport(report) };
  };
}
