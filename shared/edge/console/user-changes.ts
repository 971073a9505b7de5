// Changing console users after they are made: their roles, disabling and enabling, deleting, and a user choosing their own password.
import { ApiError } from '#platform/errors.ts';
import { cancellationCodes, getItem, transactWrite } from '#platform/table/commands.ts';
import { consoleKeys } from '#platform/table/console-keys.ts';
import type { ConsoleRole, ConsoleUser } from './page.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem, verifyPassword } from './passwords.ts';
import type { consoleUserStatuses } from './users.ts';
import { reservePasswordCheck, windowEndMs } from './sign-in-limits.ts';
import { consoleRoles, findCredentials, normalEmail } from './users.ts';

export type ConsoleUserStatus = (typeof consoleUserStatuses)[number];

export type ConsoleUserChange = { readonly roles: readonly ConsoleRole[] } | { readonly status: ConsoleUserStatus };

function noSuchUser(email: string): ApiError {
  return new ApiError('not_found', `There is no console user ${email} in this workspace.`);
}

/** The roles as given, known ones only and at least one, in the order the console lists them. */
export function checkedRoles(roles: readonly string[]): ConsoleRole[] {
  const unknown = roles.find((role) => !(consoleRoles as readonly string[]).includes(role));
  if (unknown !== undefined) {
    throw new ApiError('invalid_request', `There is no role ${JSON.stringify(unknown)}: ${consoleRoles.join(', ')}.`, { param: 'roles' });
  }
  const chosen = consoleRoles.filter((role) => roles.includes(role));
  if (chosen.length === 0) throw new ApiError('invalid_request', 'A user needs at least one role.', { param: 'roles' });
  return chosen;
}

/** Both items of the user, each only while it is the workspace's: a user of another workspace is not found. */
async function writeBoth(workspaceId: string, email: string, entries: (key: { PK: string; SK: string }, isCredentials: boolean) => object) {
  const keys = [consoleKeys.consoleUser(email), consoleKeys.consoleUserListing(workspaceId, email)];
  try {
    await transactWrite(keys.map((key, index) => entries(key, index === 0)));
  } catch (error) {
    if (cancellationCodes(error)?.includes('ConditionalCheckFailed')) throw noSuchUser(email);
    throw error;
  }
}

const OF_WORKSPACE = { ConditionExpression: 'workspaceId = :ws' };

/**
 * Changes a user of the workspace. New roles apply to their open sessions at their next request; disabling ends
 * their open sessions (the version moves on, so enabling again does not bring them back) and stops sign-in.
 */
export async function changeConsoleUser(workspaceId: string, rawEmail: string, change: ConsoleUserChange): Promise<void> {
  const email = normalEmail(rawEmail);
  const roles = 'roles' in change ? checkedRoles(change.roles) : undefined;
  const status = 'status' in change ? change.status : undefined;
  await writeBoth(workspaceId, email, (Key, isCredentials) => {
    const bump = isCredentials && status === 'disabled';
    return {
      Update: {
        Key,
        ...OF_WORKSPACE,
        // Named, not written: `roles`, `status` and `version` may be DynamoDB reserved words.
        UpdateExpression: `SET #field = :value${bump ? ' ADD #version :one' : ''}`,
        ExpressionAttributeNames: { '#field': roles ? 'roles' : 'status', ...(bump ? { '#version': 'version' } : {}) },
        ExpressionAttributeValues: { ':ws': workspaceId, ':value': roles ?? status, ...(bump ? { ':one': 1 } : {}) },
      },
    };
  });
}

/** Deletes a user of the workspace: they cannot sign in, and their open sessions end at their next request. */
export async function deleteConsoleUser(workspaceId: string, rawEmail: string): Promise<void> {
  const email = normalEmail(rawEmail);
  await writeBoth(workspaceId, email, (Key) => ({
    Delete: { Key, ...OF_WORKSPACE, ExpressionAttributeValues: { ':ws': workspaceId } },
  }));
}

/** Whether the workspace has a user of this email: the listing item, read strongly consistent. */
export async function isWorkspaceUser(workspaceId: string, email: string): Promise<boolean> {
  return (await getItem({ Key: consoleKeys.consoleUserListing(workspaceId, email), ConsistentRead: true })) !== undefined;
}

/**
 * The signed-in user replaces their password, giving the current one. Every other session of theirs ends (the
 * version moves on); returns the new version, which the session making the change takes on.
 */
export async function changeOwnPassword(user: ConsoleUser, current: string, chosen: string, nowMs = Date.now()): Promise<number> {
  const stored = await findCredentials(user.email);
  if (!stored || stored.userId !== user.userId) throw noSuchUser(user.email);
  // Counted before it is checked, as a sign-in is: a session cannot guess the password faster than sign-in could.
  const reservation = await reservePasswordCheck(user.userId, nowMs);
  if (!reservation) {
    const minutes = Math.max(1, Math.ceil((windowEndMs(nowMs) - nowMs) / 60_000));
    throw new ApiError('rate_limited', `Too many wrong current passwords. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
      param: 'current',
    });
  }
  const rightCurrent = current.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(current, stored.passwordHash));
  if (!rightCurrent) throw new ApiError('invalid_request', 'The current password is not right.', { param: 'current' });
  await reservation.release();
  const problem = passwordProblem(chosen);
  if (problem) throw new ApiError('invalid_request', problem, { param: 'password' });
  if (chosen === current) {
    throw new ApiError('invalid_request', 'Choose a new password, not the one you have now.', { param: 'password' });
  }
  const passwordHash = await hashPassword(chosen);
  // Conditional on the hash read: of two changes at once, the second is refused rather than silently undone.
  await writeBoth(user.workspaceId, user.email, (Key, isCredentials) => ({
    Update: {
      Key,
      ConditionExpression: isCredentials ? 'workspaceId = :ws AND passwordHash = :old' : 'workspaceId = :ws',
      UpdateExpression: isCredentials
        ? 'SET passwordHash = :hash, mustChangePassword = :no ADD #version :one'
        : 'SET mustChangePassword = :no',
      ...(isCredentials ? { ExpressionAttributeNames: { '#version': 'version' } } : {}),
      ExpressionAttributeValues: {
        ':ws': user.workspaceId,
        ':no': false,
        ...(isCredentials ? { ':old': stored.passwordHash, ':hash': passwordHash, ':one': 1 } : {}),
      },
    },
  }));
  return stored.version + 1;
}
