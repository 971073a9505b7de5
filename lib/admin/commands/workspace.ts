// The admin CLI's `workspace` commands: create a workspace, and change its status, features, limits and pricing settings.
import { PricingOverridesSchema } from '#shared/pricing/settings.ts';
import { CurrencyCodeSchema, features, WorkspaceStatusSchema } from '#shared/workspaces/schema.ts';
import type { AdminCommand } from '#lib/admin/command.ts';

export const workspaceCommands: readonly AdminCommand[] = [
  {
    name: 'workspace create',
    usage: '  workspace create --name N [--base-currency USD]',
    options: ['name', 'base-currency'],
    prepare(args) {
      const { values } = args;
      const input = {
        name: args.required('name'),
        baseCurrency:
          values['base-currency'] === undefined ? undefined : args.checked('base-currency', CurrencyCodeSchema, values['base-currency']),
      };
      return async () => {
        const { createWorkspace } = await import('#shared/workspaces/repository.ts');
        const workspace = await createWorkspace(input);
        return { json: { workspaceId: workspace.workspaceId }, text: `Created workspace ${workspace.workspaceId}` };
      };
    },
  },
  {
    name: 'workspace update',
    usage: `  workspace update W [--status active|inactive] [--features writebacks,storefront,overview]
                     [--rate-limit N] [--overview-rate-limit N] [--monthly-lines N] [--batch-record-cap N]
                     [--batch-line-cap N]   quote and order lines one batch takes
                     [--connector-limit N]   connectors the workspace may have (1 to 200; 50 by default)
                     [--pricing JSON]   the pricing settings it overrides, e.g. '{"maxChangePct":20}'; '{}' for defaults`,
    target: 'the workspace id',
    options: [
      'status',
      'features',
      'rate-limit',
      'overview-rate-limit',
      'monthly-lines',
      'batch-record-cap',
      'batch-line-cap',
      'connector-limit',
      'pricing',
    ],
    prepare(args) {
      const { values, target } = args;
      const changes = {
        status: values.status === undefined ? undefined : args.oneOf('status', WorkspaceStatusSchema.options, values.status),
        features: args.eachOneOf('features', features),
        rateLimit: args.count('rate-limit'),
        overviewRateLimit: args.count('overview-rate-limit'),
        monthlyLines: args.count('monthly-lines'),
        batchRecordCap: args.count('batch-record-cap'),
        batchLineCap: args.count('batch-line-cap'),
        connectorLimit: args.count('connector-limit'),
        pricing: values.pricing === undefined ? undefined : args.checked('pricing', PricingOverridesSchema, args.json('pricing')),
      };
      return async () => {
        const { updateWorkspace } = await import('#shared/workspaces/repository.ts');
        const { createdAt: _created, updatedAt: _updated, ...settings } = await updateWorkspace(target, changes);
        return { json: settings, text: JSON.stringify(settings, null, 2) };
      };
    },
  },
];
