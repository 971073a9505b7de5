// The admin CLI's `approval history`: a SKU's approvals, newest first, with who approved, the checks and each connector's task, as the API lists them.
import type { ApprovalHistoryEntry } from '#shared/approvals/history.ts';
import { existingWorkspace } from '#lib/admin/command.ts';
import type { AdminCommand } from '#lib/admin/command.ts';

function approverText(approver: ApprovalHistoryEntry['approved_by']): string {
  return approver.type === 'console_user' ? `console user ${approver.email ?? approver.id}` : `API key ${approver.id}`;
}

/** The approved price against the recommendation: the recommendation as shown is no override, whatever it moved to within the tolerance. */
function againstRecommendation(entry: ApprovalHistoryEntry): string {
  const { recommended_price: recommended, shown_price: shown } = entry.recommendation;
  if (shown === entry.price) return `as shown (recommended ${recommended} when approved)`;
  return entry.price === recommended ? 'as recommended' : `over the recommended ${recommended}`;
}

/** One approval as a few lines of text: the same facts as the API's entry. */
export function approvalText(entry: ApprovalHistoryEntry): string {
  const change = entry.change_pct === null ? 'change unknown' : `${entry.change_pct > 0 ? '+' : ''}${entry.change_pct.toFixed(2)}%`;
  const lines = [
    `${entry.approved_at}  ${entry.approval_id}  ${entry.status}${entry.livemode ? '' : ' (sandbox)'}`,
    `  ${entry.price} ${entry.currency} (${change}) ${againstRecommendation(entry)}, by ${approverText(entry.approved_by)}`,
  ];
  if (entry.confirmation) lines.push(`  confirmed: past ${entry.confirmation.threshold_pct}%`);
  const second = entry.second_approval;
  if (second) {
    lines.push(
      second.approved_by
        ? `  second approver: ${approverText(second.approved_by)} at ${second.approved_at}`
        : `  second approver needed (past ${second.threshold_pct}%) until ${second.waiting_until}`,
    );
  }
  for (const task of entry.tasks) {
    lines.push(`  ${task.connector_id} ${task.writeback_id}: ${task.state}${task.error === null ? '' : ` (${task.error})`}`);
  }
  return lines.join('\n');
}

export const approvalCommands: readonly AdminCommand[] = [
  {
    name: 'approval history',
    usage: `  approval history --workspace W SKU [--limit N] [--starting-after CURSOR]
                     a SKU's approvals, newest first: who, when, the checks, and each connector's task`,
    target: 'the SKU',
    options: ['workspace', 'limit', 'starting-after'],
    prepare(args) {
      const { target, values } = args;
      const workspaceId = args.required('workspace');
      return async () => {
        const { approvalHistoryView, readApprovalHistory, readApprovalsListing } = await import('#shared/approvals/history.ts');
        const listing = readApprovalsListing({
          ...(values.limit === undefined ? {} : { limit: values.limit }),
          ...(values['starting-after'] === undefined ? {} : { starting_after: values['starting-after'] }),
        });
        await existingWorkspace(workspaceId);
        const history = approvalHistoryView(await readApprovalHistory(workspaceId, target, listing), Date.now());
        const text = history.data.length === 0 ? `No approvals of ${target}.` : history.data.map(approvalText).join('\n');
        return { json: history, text: history.next === null ? text : `${text}\nMore: --starting-after ${history.next}` };
      };
    },
  },
];
