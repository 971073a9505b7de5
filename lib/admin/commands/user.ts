// The admin CLI's console users: `user create` with a one-time password or one piped in on stdin, and `user update`, `disable`, `enable` and `delete`.
import type { ConsoleUserChange } from '#edge/console/user-changes.ts';
import { type AdminArguments, type AdminCommand, UsageError } from '#lib/admin/command.ts';

export const userCommands: readonly AdminCommand[] = [
  {
    name: 'user create',
    usage: `  user create --workspace W --email E --roles admin[,pricing][,finance] [--password-stdin]
                                        a console user; prints a one-time password, or takes the password
                                        from the first line of stdin (at least 12 characters); a one-time
                                        password must be replaced by the user at their first sign-in`,
    options: ['workspace', 'email', 'roles', 'password-stdin'],
    async prepare(args) {
      const { values } = args;
      const { passwordProblem } = await import('#edge/console/passwords.ts');
      const workspaceId = args.required('workspace');
      const email = await emailOf(args);
      const roles = await rolesOf(args);
      const password = values['password-stdin'] ? await firstLineOfStdin() : undefined;
      const problem = password === undefined ? undefined : passwordProblem(password);
      if (problem) throw new UsageError(`the password on stdin is refused: ${problem}`);
      return async () => {
        const { createConsoleUser } = await import('#edge/console/users.ts');
        const { OPERATOR } = await import('#shared/api-keys/schema.ts');
        const created = await createConsoleUser({ workspaceId, email, roles, password, createdBy: OPERATOR.id });
        const chosen = password !== undefined;
        return {
          json: { userId: created.userId, email: created.email, ...(chosen ? {} : { password: created.password }) },
          text: chosen
            ? `Created console user ${created.email} (${created.userId}) with the password from stdin`
            : `Created console user ${created.email} (${created.userId}). Their one-time password is shown this once:\n${created.password}`,
        };
      };
    },
  },
  changeCommand(
    'update',
    '--roles admin[,pricing][,finance]',
    "sets the user's roles; their open sessions have the new roles at their next request",
    async (args) => ({ roles: await rolesOf(args) }),
    'Changed the roles of',
  ),
  changeCommand(
    'disable',
    '[--revoke-keys]',
    'the user can no longer sign in; their open sessions end at their next request; lists the keys they made, which keep working unless --revoke-keys',
    async () => ({ status: 'disabled' }),
    'Disabled',
  ),
  changeCommand(
    'enable',
    '',
    'the user may sign in again (sessions ended by disabling stay ended)',
    async () => ({ status: 'active' }),
    'Enabled',
  ),
  changeCommand(
    'delete',
    '[--revoke-keys]',
    'removes the user; their open sessions end at their next request; lists the keys they made, which keep working unless --revoke-keys',
    async () => 'delete',
    'Deleted',
  ),
];

type Change = ConsoleUserChange | 'delete';

/** `user <verb> --workspace W --email E …`: a change to one user of the workspace; a user of another workspace is not found. */
function changeCommand(
  verb: string,
  extra: string,
  effect: string,
  changeOf: (args: AdminArguments) => Promise<Change>,
  done: string,
): AdminCommand {
  const line = `  user ${verb} --workspace W --email E${extra ? ` ${extra}` : ''}`;
  return {
    name: `user ${verb}`,
    usage: `${line}${' '.repeat(Math.max(1, 40 - line.length))}${effect}`,
    options: extra.startsWith('--roles')
      ? ['workspace', 'email', 'roles']
      : extra
        ? ['workspace', 'email', 'revoke-keys']
        : ['workspace', 'email'],
    async prepare(args) {
      const workspaceId = args.required('workspace');
      const email = await emailOf(args);
      const change = await changeOf(args);
      const revoke = args.values['revoke-keys'] === true;
      return async () => {
        const { changeConsoleUser, deleteConsoleUser } = await import('#edge/console/user-changes.ts');
        const { listConsoleUsers } = await import('#edge/console/users.ts');
        const ending = change === 'delete' || ('status' in change && change.status === 'disabled');
        const user = ending ? (await listConsoleUsers(workspaceId)).find((listed) => listed.email === email) : undefined;
        if (change === 'delete') await deleteConsoleUser(workspaceId, email);
        else await changeConsoleUser(workspaceId, email, change);
        const made = user ? await madeKeys(workspaceId, user.userId, revoke) : undefined;
        return {
          json: {
            email,
            workspaceId,
            ...(change === 'delete' ? { deleted: true } : change),
            ...(made && made.json.length > 0 ? { keys: made.json } : {}),
          },
          text: `${done} console user ${email}${made ? `\n${made.text}` : ''}`,
        };
      };
    },
  };
}

/** The keys a user made that still work, revoked with --revoke-keys: each line says which. */
async function madeKeys(workspaceId: string, userId: string, revoke: boolean) {
  const { keysCreatedBy, revokeKeysCreatedBy } = await import('#shared/api-keys/repository.ts');
  const keys = revoke ? await revokeKeysCreatedBy(workspaceId, userId) : await keysCreatedBy(workspaceId, userId, Date.now());
  const state = revoke ? 'revoked' : 'still works (revoke with key revoke, or --revoke-keys)';
  return {
    json: keys.map((key) => ({ keyId: key.keyId, name: key.name ?? null, revoked: revoke })),
    text:
      keys.length === 0
        ? 'They made no key that still works'
        : keys.map((key) => `  ${key.keyId}  ${key.name ?? '—'}  ${state}`).join('\n'),
  };
}

async function emailOf(args: AdminArguments): Promise<string> {
  const { normalEmail } = await import('#edge/console/users.ts');
  try {
    return normalEmail(args.required('email'));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`invalid --email ${JSON.stringify(args.values.email)}: expected an email address`);
  }
}

async function rolesOf(args: AdminArguments) {
  const { consoleRoles } = await import('#edge/console/users.ts');
  args.required('roles');
  const roles = args.eachOneOf('roles', consoleRoles) ?? [];
  if (roles.length === 0) throw new UsageError('--roles needs at least one of admin, pricing, finance');
  return consoleRoles.filter((role) => roles.includes(role));
}

/** The first line of stdin, without its line end: a password piped in, never echoed nor put on the command line. */
export async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
}
