// `npm start`: runs the whole service locally in the foreground until SIGINT or SIGTERM.
import { startLocal } from '#lib/local/start.ts';

// Loaded when called: the migrations' modules read the environment the local stack sets as it starts.
await startLocal(process.argv.slice(2), async (workspaceId) =>
  (await import('#lib/admin/migrations/upgrade.ts')).upgradeWorkspace(workspaceId),
);
