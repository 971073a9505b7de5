// Console users: the people who sign in to the console, a principal apart from API keys, each of one workspace with roles.
import * as v from 'valibot';
import type { Person } from '#shared/api-keys/schema.ts';
import { ApiError } from '#platform/errors.ts';
import { newId } from '#platform/ids.ts';
import { getItem } from '#platform/table/commands.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import { queryAll } from '#platform/table/query.ts';
import { ItemAlreadyExists, putWorkspaceItems } from '#shared/workspaces/repository.ts';
import type { ConsoleRole, ConsoleUser } from './page.ts';
import { hashPassword, oneTimePassword, passwordProblem } from './passwords.ts';

/** Where a signed-in user chooses their own password; a one-time password leads every page here until it is replaced. */
export const PASSWORD_PATH = '/console/settings/password';

export const consoleRoles = ['admin', 'pricing', 'finance'] as const satisfies readonly ConsoleRole[];
export const ConsoleRoleSchema = v.picklist(consoleRoles);

/** What each role is for; every role may read every page, and forms name the role they need. */
export const roleDescriptions: Readonly<Record<ConsoleRole, string>> = {
  admin: 'manages API keys, connectors, webhook redeliveries and users',
  pricing: 'approves recommended prices',
  finance: 'reviews cost and adherence',
};

const EmailSchema = v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('an email address'));

export const consoleUserStatuses = ['active', 'disabled'] as const;

export const ConsoleUserRecordSchema = v.object({
  userId: v.string(),
  email: v.string(),
  workspaceId: v.string(),
  roles: v.array(ConsoleRoleSchema),
  createdAt: v.string(),
  /** A disabled user cannot sign in, and their open sessions end. Users made before there was a status are active. */
  status: v.optional(v.picklist(consoleUserStatuses), 'active'),
  /** Set while the password is a one-time password someone else saw: the user must choose their own before anything else. */
  mustChangePassword: v.optional(v.boolean(), false),
  /**
   * Counts the changes that end the user's open sessions (a new password, being disabled): each session keeps the
   * version it was opened at and is refused once the user's differs.
   */
  version: v.optional(v.number(), 0),
  /** Who made the user: a console user's id, or `operator`; absent on users made before it was kept. */
  createdBy: v.optional(v.string()),
});
export type ConsoleUserRecord = v.InferOutput<typeof ConsoleUserRecordSchema>;

const CredentialsSchema = v.object({ ...ConsoleUserRecordSchema.entries, passwordHash: v.string() });

export interface NewConsoleUser {
  readonly workspaceId: string;
  readonly email: string;
  readonly roles: readonly ConsoleRole[];
  /**
   * Chosen by the person (an operator setting up their own user, say); without one the service mints a one-time
   * password, which the user must replace with their own at their first sign-in.
   */
  readonly password?: string;
  /** Who makes the user: the admin's user id in the console, `operator` from the admin CLI. */
  readonly createdBy?: string;
}

/** Said of any email that cannot get a new user, whether its user is in this workspace or another, or being made. */
export const EMAIL_UNAVAILABLE = 'This email cannot be given a new console user. Use another address, or change the user listed below.';

/** Emails are compared as typed, lowercased and trimmed: `Ann@Example.com ` and `ann@example.com` are one account. */
export function normalEmail(email: string): string {
  const result = v.safeParse(EmailSchema, email);
  if (!result.success) throw new ApiError('invalid_request', 'Give an email address, such as ann@example.com.', { param: 'email' });
  return result.output;
}

/**
 * Creates a console user of the workspace, with its password hashed by scrypt. Returns the password once: the one
 * given, or the one-time password minted. Emails are unique across workspaces: a taken one is refused.
 */
export async function createConsoleUser(
  input: NewConsoleUser,
  now = new Date(),
): Promise<{ userId: string; email: string; password: string }> {
  const email = normalEmail(input.email);
  const roles = [...new Set(input.roles)];
  if (roles.length === 0) throw new ApiError('invalid_request', 'A user needs at least one role.', { param: 'roles' });
  for (const role of roles) {
    if (!(consoleRoles as readonly string[]).includes(role)) {
      throw new ApiError('invalid_request', `There is no role ${JSON.stringify(role)}: ${consoleRoles.join(', ')}.`, { param: 'roles' });
    }
  }
  const password = input.password ?? oneTimePassword();
  const problem = passwordProblem(password);
  if (problem) throw new ApiError('invalid_request', problem, { param: 'password' });
  const record: ConsoleUserRecord = {
    userId: newId('usr'),
    email,
    workspaceId: input.workspaceId,
    roles: consoleRoles.filter((role) => roles.includes(role)),
    createdAt: now.toISOString(),
    status: 'active',
    mustChangePassword: input.password === undefined,
    version: 0,
    ...(input.createdBy === undefined ? {} : { createdBy: input.createdBy }),
  };
  const passwordHash = await hashPassword(password);
  try {
    await putWorkspaceItems(input.workspaceId, [
      { ...consoleKeys.consoleUser(email), type: 'consoleUser', ...record, passwordHash },
      { ...consoleKeys.consoleUserListing(input.workspaceId, email), type: 'consoleUserListing', ...record },
    ]);
  } catch (error) {
    // Emails are unique across workspaces, but whose an email is elsewhere is none of this workspace's business.
    if (error instanceof ItemAlreadyExists) throw new ApiError('invalid_request', EMAIL_UNAVAILABLE, { param: 'email' });
    throw error;
  }
  return { userId: record.userId, email, password };
}

/** The user who signs in with this email, with the hash to check a password against; strongly consistent. */
export async function findCredentials(email: string): Promise<(ConsoleUserRecord & { passwordHash: string }) | undefined> {
  const Item = await getItem({ Key: consoleKeys.consoleUser(email), ConsistentRead: true });
  return Item ? v.parse(CredentialsSchema, Item) : undefined;
}

/** The workspace's console users, by email. */
export async function listConsoleUsers(workspaceId: string): Promise<ConsoleUserRecord[]> {
  const { PK, SKPrefix } = consoleKeys.consoleUserListingPrefix(workspaceId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
  });
  return items.map((item) => v.parse(ConsoleUserRecordSchema, item));
}

/** The console user as the person a key they make records as its creator, with who made them and when. */
export function personOfUser(user: ConsoleUser): Person {
  return {
    type: 'console_user',
    id: user.userId,
    email: user.email,
    ...(user.createdBy === undefined ? {} : { createdBy: user.createdBy }),
    ...(user.createdAt === undefined ? {} : { createdAt: user.createdAt }),
  };
}

export function consoleUserOf(record: ConsoleUserRecord): ConsoleUser {
  return {
    userId: record.userId,
    email: record.email,
    workspaceId: record.workspaceId,
    roles: record.roles,
    createdAt: record.createdAt,
    ...(record.createdBy === undefined ? {} : { createdBy: record.createdBy }),
    ...(record.mustChangePassword ? { mustChangePassword: true } : {}),
  };
}
