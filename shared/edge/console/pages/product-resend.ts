// The product page's "Send again" for a failed write-back of its newest approval: the form's task checked, the domain's refusal said above the history.
import * as v from 'valibot';
import { IdentifierSchema } from '#shared/records/identifier.ts';
import { resendTask } from '#shared/approvals/resend.ts';
import { TaskIdSchema } from '#shared/writebacks/schema.ts';
import { money } from '#edge/console/formats.ts';
import type { ConsoleContext, PageAction, PageView } from '#edge/console/page.ts';
import { productPath } from './recommendation-paths.ts';

/** `readPage` renders the product page with the reason a send was refused. */
export function resendAction(readPage: (ctx: ConsoleContext, error: string) => Promise<PageView>): PageAction {
  return {
    // Sending a price to a connector publishes it, as an approval does.
    role: 'pricing',
    feature: 'overview',
    async run(ctx, form) {
      const sku = ctx.params.sku ?? '';
      const taskId = form.task ?? '';
      if (!v.is(IdentifierSchema, sku) || !v.is(TaskIdSchema, taskId)) {
        return { kind: 'render', status: 422, view: await readPage(ctx, 'No such write-back task to send again.') };
      }
      const outcome = await resendTask(ctx.user.workspaceId, taskId, { sku, by: ctx.user.userId }, new Date(ctx.nowMs));
      if ('refused' in outcome) return { kind: 'render', status: 409, view: await readPage(ctx, outcome.refused) };
      const { resent } = outcome;
      return {
        kind: 'redirect',
        location: productPath(sku),
        notice: `Sent ${money(resent.priceCents, resent.currency)} for ${resent.productSku} to ${resent.channel} again: ${resent.taskId} is pending.`,
      };
    },
  };
}
