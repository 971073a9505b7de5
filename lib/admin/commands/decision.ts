// The admin CLI's `decision show`: the priced line a decision id names, with its call's time.
import type { AdminCommand } from '#lib/admin/command.ts';

export const decisionCommands: readonly AdminCommand[] = [
  {
    name: 'decision show',
    usage: "  decision show --workspace W pd_…      the priced line a decision id names, with its call's time",
    target: 'the decision id',
    options: ['workspace'],
    prepare(args) {
      const { target } = args;
      const workspaceId = args.required('workspace');
      return async () => {
        const { findDecision } = await import('#shared/prices/calls.ts');
        const decision = await findDecision(workspaceId, target);
        if (!decision) throw new Error(`no decision ${target} in workspace ${workspaceId}`);
        return { json: decision, text: JSON.stringify(decision, null, 2) };
      };
    },
  },
];
