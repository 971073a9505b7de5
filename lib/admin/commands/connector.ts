// The admin CLI's `connector create`: a connector of a workspace, which may or may not receive write-backs.
import type { AdminCommand } from '#lib/admin/command.ts';

export const connectorCommands: readonly AdminCommand[] = [
  {
    name: 'connector create',
    usage: '  connector create --workspace W --name N [--no-writebacks]',
    options: ['workspace', 'name', 'no-writebacks'],
    prepare(args) {
      const input = {
        workspaceId: args.required('workspace'),
        name: args.required('name'),
        receivesWritebacks: !args.values['no-writebacks'],
      };
      return async () => {
        const { createConnector } = await import('#shared/connectors/repository.ts');
        const connector = await createConnector(input);
        return { json: { connectorId: connector.connectorId }, text: `Created connector ${connector.connectorId}` };
      };
    },
  },
];
