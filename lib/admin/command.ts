// What an admin command is (its row: name, usage, target, options, and how it runs), and the argument readers the rows share.
import * as v from 'valibot';
import type { Workspace } from '#shared/workspaces/schema.ts';
import type { AdminOption, AdminValues } from './options.ts';

/** A bad argument or value: exit 2 with the usage. Anything else thrown is a failure of the command itself: exit 1. */
export class UsageError extends Error {}

/** What a command prints: `json` with --json, `text` otherwise. */
export type Result = { json: unknown; text: string };

/** Carries the command out, once the target is connected. */
export type Execute = () => Promise<Result>;

/** A report command's arguments: its workspace, an optional period and grouping, and one format. */
export interface ReportArguments {
  readonly workspace: string;
  readonly from?: string;
  readonly to?: string;
  readonly by?: string;
  readonly csv?: boolean;
  readonly json?: boolean;
}

/** A report prints one format: both asked for at once is a usage error. */
export function checkReportFormat(args: ReportArguments): void {
  if (args.csv && args.json) throw new UsageError('--csv and --json are two formats: choose one');
}

/**
 * The workspace a command works on; one that does not exist fails the command (exit 1). The repository is loaded
 * here, inside `Execute`, once the target has set the environment it reads.
 */
export async function existingWorkspace(workspaceId: string): Promise<Workspace> {
  const { getWorkspace } = await import('#shared/workspaces/repository.ts');
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`workspace ${workspaceId} does not exist`);
  return workspace;
}

export interface AdminCommand {
  /** The words that name it, e.g. `workspace create`. */
  readonly name: string;
  /** Its lines in the usage text, each indented by two spaces. */
  readonly usage: string;
  /** The positional argument it takes after its name, if any, as the error for a missing one names it. */
  readonly target?: string;
  /** The options it takes besides the global ones. */
  readonly options: readonly AdminOption[];
  /** False for a command that reads no table (the `dlq` commands): with --aws it needs no --table. */
  readonly usesTable?: false;
  /**
   * Reads and checks every argument, and returns what carries the command out: a bad argument is refused before
   * anything is read or written, and before the target is even looked for. Repository modules are imported inside
   * `Execute`, once the target has set the environment they read.
   */
  readonly prepare: (args: AdminArguments) => Execute | Promise<Execute>;
}

/** The command line as a command reads it: its target and option values, with readers that throw `UsageError`. */
export class AdminArguments {
  readonly values: AdminValues;
  readonly target: string;

  constructor(values: AdminValues, target: string) {
    this.values = values;
    this.target = target;
  }

  required(name: AdminOption): string {
    const value = this.values[name];
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
    return value;
  }

  oneOf<const T extends string>(name: AdminOption, allowed: readonly T[], value: string): T {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new UsageError(`invalid --${name} ${JSON.stringify(value)}: expected ${allowed.join(', ')}`);
    }
    return value as T;
  }

  eachOneOf<const T extends string>(name: AdminOption, allowed: readonly T[]): T[] | undefined {
    return list(this.values[name] as string | undefined)?.map((item) => this.oneOf(name, allowed, item));
  }

  count(name: AdminOption): number | undefined {
    const value = this.values[name];
    if (value === undefined) return undefined;
    const number = Number(value);
    if (!/^\d+$/.test(String(value)) || !Number.isSafeInteger(number) || number < 1)
      throw new UsageError(`--${name} must be a whole number of at least 1`);
    return number;
  }

  /** The value checked against its schema; a mismatch is a bad argument, named by its option. */
  checked<const TSchema extends v.GenericSchema>(name: AdminOption, schema: TSchema, value: unknown): v.InferOutput<TSchema> {
    const result = v.safeParse(schema, value);
    if (result.success) return result.output;
    const problems = result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw new UsageError(`invalid --${name}: ${problems.join('; ')}`);
  }

  json(name: AdminOption): unknown {
    try {
      return JSON.parse(String(this.values[name]));
    } catch {
      throw new UsageError(`--${name} must be JSON`);
    }
  }
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined
    ? undefined
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
}
