// `npm run admin -- …`: operator commands for workspaces, connectors and keys, on the local stack or, with --aws, the deployed table.
import { runAdmin } from '#lib/admin/cli.ts';

await runAdmin(process.argv.slice(2));
