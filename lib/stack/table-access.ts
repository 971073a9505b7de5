// What each function may call on the table: the IAM actions of the access patterns whose `usedBy` names it, and no other.
import { type AccessPattern, accessPatterns, type TableCall } from '#platform/table/access-patterns.ts';

/** A row of the route table as far as the catalogue's words need it: its id, and what makes it one of a collective. */
export interface TableCaller {
  readonly id: string;
  /** Absent for workers, jobs and the fallback route; `'none'` for an open route; `'session'` for a signed-in console route. */
  readonly auth?: unknown;
  /** `v1`, `overview` or `console`, for routes. */
  readonly surface?: string;
}

/**
 * The IAM actions of each call, on the table's own ARN or on its indexes. A transaction's entries are authorized as
 * the item calls they are (PutItem, UpdateItem, DeleteItem; ConditionCheckItem for a check), and BatchExecuteStatement
 * as the PartiQL statements it carries.
 */
export const tableCallActions: Readonly<Record<TableCall, { readonly table?: string; readonly index?: string }>> = {
  GetItem: { table: 'dynamodb:GetItem' },
  BatchGetItem: { table: 'dynamodb:BatchGetItem' },
  Query: { table: 'dynamodb:Query' },
  'Query index': { index: 'dynamodb:Query' },
  Scan: { table: 'dynamodb:Scan' },
  PutItem: { table: 'dynamodb:PutItem' },
  UpdateItem: { table: 'dynamodb:UpdateItem' },
  DeleteItem: { table: 'dynamodb:DeleteItem' },
  BatchWriteItem: { table: 'dynamodb:BatchWriteItem' },
  'TransactWriteItems ConditionCheck': { table: 'dynamodb:ConditionCheckItem' },
  'TransactWriteItems Put': { table: 'dynamodb:PutItem' },
  'TransactWriteItems Update': { table: 'dynamodb:UpdateItem' },
  'TransactWriteItems Delete': { table: 'dynamodb:DeleteItem' },
  'BatchExecuteStatement UPDATE': { table: 'dynamodb:PartiQLUpdate' },
};

/** Actions that change the table; a function whose row says `table: 'read'` may hold none of them. */
export const tableWriteActions: ReadonlySet<string> = new Set([
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:PartiQLUpdate',
]);

/** The console's pages by the words the catalogue uses; the front page reads what the report pages and the list read. */
const consolePages: Readonly<Record<string, readonly string[]>> = {
  'console recommendations': ['consoleRecommendations', 'consoleBulkApprove', 'consoleHome', 'consolePage'],
  'console product': ['consoleProduct', 'consoleApprove'],
  'console landing': ['consoleHome', 'consolePage'],
  'console batches': ['consoleHome', 'consolePage'],
  'console write-backs': ['consoleHome', 'consolePage'],
  'console cost': ['consoleHome', 'consolePage'],
  'console adherence': ['consoleHome', 'consolePage'],
};

const keyed = (caller: TableCaller) => caller.auth !== undefined && caller.auth !== 'none' && caller.auth !== 'session';

/** The collectives of `usedBy`, each with the rows it means. */
export const collectives: Readonly<Record<string, (caller: TableCaller) => boolean>> = {
  'every /api/v1 and /v1 route': keyed,
  'every /api/v1 route': (caller) => keyed(caller) && caller.surface === 'v1',
  'every signed-in console route': (caller) => caller.auth === 'session',
};

/** Entries run by an operator's command with its own credentials, not by a function of the stack. */
export function isOperatorEntry(entry: string): boolean {
  return /^(admin|npm) /.test(entry);
}

/** The function id an entry names: its first word, before any remark in brackets. */
function leadingId(entry: string): string {
  return entry.split(/[ (]/)[0] ?? '';
}

/** Whether one `usedBy` entry means this caller; `known` says whether the entry means anything at all. */
export function entryNames(entry: string, caller: TableCaller, ids: ReadonlySet<string>): { names: boolean; known: boolean } {
  const collective = collectives[entry];
  if (collective) return { names: collective(caller), known: true };
  const pages = consolePages[entry];
  if (pages) return { names: pages.includes(caller.id), known: true };
  if (isOperatorEntry(entry)) return { names: false, known: true };
  const id = leadingId(entry);
  return { names: id === caller.id, known: ids.has(id) };
}

/** The patterns a caller runs, with those of the functions whose calls its patterns make as well (`callsAs`). */
export function patternsOf(caller: TableCaller, callers: readonly TableCaller[], patterns = accessPatterns): AccessPattern[] {
  const ids = new Set(callers.map((candidate) => candidate.id));
  const own = patterns.filter((pattern) => pattern.usedBy.some((entry) => entryNames(entry, caller, ids).names));
  const borrowed = own.flatMap((pattern) => pattern.callsAs ?? []);
  const lent = borrowed.flatMap((id) => {
    const lender = callers.find((candidate) => candidate.id === id);
    return lender ? patternsOf(lender, callers, patterns) : [];
  });
  return [...new Set([...own, ...lent])];
}

export interface TableAccess {
  /** Sorted IAM actions on the table's ARN. */
  readonly tableActions: readonly string[];
  /** Sorted IAM actions on `<table>/index/*`; empty when no pattern of the function queries an index. */
  readonly indexActions: readonly string[];
}

/** The table actions a caller's patterns need, and nothing else. */
export function tableAccessOf(caller: TableCaller, callers: readonly TableCaller[], patterns = accessPatterns): TableAccess {
  const calls = patternsOf(caller, callers, patterns).flatMap((pattern) => pattern.calls);
  const actions = calls.map((call) => tableCallActions[call]);
  return {
    tableActions: [...new Set(actions.flatMap((action) => (action.table ? [action.table] : [])))].sort(),
    indexActions: [...new Set(actions.flatMap((action) => (action.index ? [action.index] : [])))].sort(),
  };
}
