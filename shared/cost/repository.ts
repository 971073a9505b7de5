// Reading a workspace's cost ledger: the items of a range of days, in one Query of its ledger partition.
import { queryAll } from '#platform/table/query.ts';
import { keys } from '#platform/table/keys.ts';
import { type CostCounts, costCounters } from './counts.ts';
import type { LedgerRow } from './report.ts';

export async function readCostLedger(workspaceId: string, fromDay: string, toDay: string): Promise<LedgerRow[]> {
  const range = keys.costLedgerDays(workspaceId, fromDay, toDay);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': range.PK, ':from': range.SKFrom, ':to': range.SKTo },
  });
  return items.map((item) => ({
    day: String(item.day),
    route: String(item.route),
    counts: Object.fromEntries(costCounters.map((counter) => [counter, Number(item[counter] ?? 0)])) as CostCounts,
  }));
}
