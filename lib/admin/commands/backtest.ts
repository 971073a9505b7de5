// The admin CLI's `backtest`: how the engine would have priced a workspace's recent quotes; the report is lib/admin/backtest.ts.
import type { AdminCommand } from '#lib/admin/command.ts';

export const backtestCommands: readonly AdminCommand[] = [
  {
    name: 'backtest',
    usage: `  backtest --workspace W [--holdout-days 60]
                                        how the engine would have priced the quotes won or lost in the last 60
                                        days of history, fitted on the history before them; reads only.
                                        Exit 3 when the history has nothing to score (docs/backtest.md)`,
    options: ['workspace', 'holdout-days'],
    prepare(args) {
      const input = { workspaceId: args.required('workspace'), holdoutDays: args.count('holdout-days') };
      return async () => {
        const { backtest } = await import('#lib/admin/backtest.ts');
        return backtest({ ...input, progress: (message) => console.error(`backtest: ${message}`) });
      };
    },
  },
];
