// The admin CLI's `history migrate`: the one-off move of documents stored a line per item into the history log.
import type { AdminCommand } from '#lib/admin/command.ts';

export const historyCommands: readonly AdminCommand[] = [
  {
    name: 'history migrate',
    usage: `  history migrate --workspace W         move documents stored a line item per line into one item per document
                                        and the history log; resumable, and safe to run again`,
    options: ['workspace'],
    prepare(args) {
      const workspaceId = args.required('workspace');
      return async () => {
        const { migrateHistory } = await import('#lib/admin/migrations/history.ts');
        const result = await migrateHistory(workspaceId, {
          onCategory: (category, documents) => console.error(`history migrate: ${category}: ${documents} documents moved`),
        });
        return {
          json: result,
          text: `Moved ${result.documents} documents (${result.lines} lines) into the history log; ${result.categories} categories done`,
        };
      };
    },
  },
];
