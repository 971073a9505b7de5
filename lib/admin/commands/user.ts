// The admin CLI's `user create`: a console user of a workspace, with a one-time password or one piped in on stdin.
import { type AdminCommand, UsageError } from '#lib/admin/command.ts';

export const userCommands: readonly AdminCommand[] = [
  {
    name: 'user create',
    usage: `  user create --workspace W --email E --roles admin[,pricing][,finance] [--password-stdin]
                                        a console user; prints a one-time password, or takes the password
                                        from the first line of stdin (at least 12 characters)`,
    options: ['workspace', 'email', 'roles', 'password-stdin'],
    async prepare(args) {
      const { values } = args;
      const { consoleRoles, normalEmail } = await import('#edge/console/users.ts');
      const { passwordProblem } = await import('#edge/console/passwords.ts');
      const workspaceId = args.required('workspace');
      let email: string;
      try {
        email = normalEmail(args.required('email'));
      } catch {
        throw new UsageError(`invalid --email ${JSON.stringify(values.email)}: expected an email address`);
      }
      args.required('roles');
      const roles = args.eachOneOf('roles', consoleRoles) ?? [];
      if (roles.length === 0) throw new UsageError('--roles needs at least one of admin, pricing, finance');
      const password = values['password-stdin'] ? await firstLineOfStdin() : undefined;
      const problem = password === undefined ? undefined : passwordProblem(password);
      if (problem) throw new UsageError(`the password on stdin is refused: ${problem}`);
      return async () => {
        const { createConsoleUser } = await import('#edge/console/users.ts');
        const created = await createConsoleUser({ workspaceId, email, roles, password });
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
];

/** The first line of stdin, without its line end: a password piped in, never echoed nor put on the command line. */
async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
}
