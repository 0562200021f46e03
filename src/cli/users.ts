/**
 * `npm run users -- <command>`: users with WordPress roles, their application passwords and
 * their OAuth clients (contract B.2), in the store the server serves (SQLite file or PostgreSQL).
 */
import { parseArgs } from 'node:util';
import { formatUtcNow } from '../model/datetime.ts';
import { ROLES, type Role } from '../model/index.ts';
import { createAppPassword, formatAppPassword } from '../server/auth/app-passwords.ts';
import { createOAuthClient } from '../server/auth/oauth-clients.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';
import { DEFAULT_DATA } from './serve.ts';

const HELP = `Usage: npm run users -- <command> [options]

Commands:
  add <login> --role <role> [--email <e-mail>]   create a user and print a new application password
  password <login> [--name <label>]              print a new application password for a user
  revoke <login> <password-id>                   revoke one application password
  list                                           list users and their application passwords
  client add <login> [--name <label>]            create an OAuth client acting as that user; prints its secret once
  client list                                    list OAuth clients
  client revoke <client-id>                      revoke an OAuth client (its tokens stop working at once)

Roles: ${ROLES.join(', ')}
Options:
  --data <file>   SQLite file (default ${DEFAULT_DATA}), or a PostgreSQL database postgres://…
                  (default CALSYNC_DATABASE_URL when set)

Examples:
  npm run users -- add alice --role editor
  curl -u 'alice:<password>' http://127.0.0.1:8080/calendar/events/v1/events?status=draft
  npm run users -- client add alice --name importer
  curl -u '<client-id>:<secret>' -d grant_type=client_credentials http://127.0.0.1:8080/oauth/token`;

async function usersMain(io: CliIO): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(io.argv);
  } catch (err) {
    io.stderr.write(`users: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  if (values.help || !command) {
    io.stdout.write(`${HELP}\n`);
    return command || values.help ? 0 : 2;
  }
  let store: Store;
  try {
    store = await openStore(values.data ?? io.env.CALSYNC_DATABASE_URL ?? DEFAULT_DATA);
  } catch (err) {
    io.stderr.write(`users: ${(err as Error).message}\n`);
    return 1;
  }
  try {
    return await run(store, command, args, values, io);
  } finally {
    await store.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string', default: 'calsync' },
      data: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

async function run(
  store: Store,
  command: string,
  args: string[],
  values: ReturnType<typeof parse>['values'],
  io: CliIO,
): Promise<number> {
  const fail = (message: string) => {
    io.stderr.write(`users: ${message}\n`);
    return 1;
  };
  const now = formatUtcNow(new Date());
  switch (command) {
    case 'add': {
      const [login] = args;
      const role = values.role as Role | undefined;
      if (!login) return fail('add needs a login: npm run users -- add <login> --role <role>');
      if (!role || !ROLES.includes(role)) return fail(`--role must be one of ${ROLES.join(', ')}`);
      if (await store.findUser(login))
        return fail(`a user "${login}" already exists; use "password ${login}" for a new password`);
      const user = await store.insertUser({ login, email: values.email ?? '', role, display_name: login });
      const { password } = await createAppPassword(store, user, values.name, now);
      io.stdout.write(
        `Created ${role} "${login}" (id ${user.id}).\nApplication password (shown once): ${formatAppPassword(password)}\n`,
      );
      return 0;
    }
    case 'password': {
      const user = args[0] ? await store.findUser(args[0]) : undefined;
      if (!user) return fail(`no user "${args[0] ?? ''}"`);
      const { password, record } = await createAppPassword(store, user, values.name, now);
      io.stdout.write(
        `Application password ${record.id} for "${user.login}" (shown once): ${formatAppPassword(password)}\n`,
      );
      return 0;
    }
    case 'revoke': {
      const user = args[0] ? await store.findUser(args[0]) : undefined;
      if (!user) return fail(`no user "${args[0] ?? ''}"`);
      const id = Number(args[1]);
      if (!(await store.appPasswords(user.id)).some((p) => p.id === id))
        return fail(`"${user.login}" has no application password ${args[1] ?? ''}`);
      await store.deleteAppPassword(id);
      io.stdout.write(`Revoked application password ${id} of "${user.login}".\n`);
      return 0;
    }
    case 'list': {
      for (const u of await store.listUsers()) {
        io.stdout.write(`${u.id}\t${u.login}\t${u.role}\t${u.email}\n`);
        for (const p of await store.appPasswords(u.id)) {
          io.stdout.write(
            `\tpassword ${p.id}\t${p.name}\tcreated ${p.created_utc}\tlast used ${p.last_used_utc ?? 'never'}\n`,
          );
        }
      }
      return 0;
    }
    case 'client':
      return client(store, args, values.name, now, io, fail);
    default:
      return fail(`unknown command "${command}"\n\n${HELP}`);
  }
}

/** `client add|list|revoke`: OAuth clients for the client-credentials grant (B.2). */
async function client(
  store: Store,
  [sub, arg]: string[],
  name: string,
  now: string,
  io: CliIO,
  fail: (message: string) => number,
): Promise<number> {
  switch (sub) {
    case 'add': {
      const user = arg ? await store.findUser(arg) : undefined;
      if (!user) return fail(`no user "${arg ?? ''}": npm run users -- client add <login> [--name <label>]`);
      const { secret, record } = await createOAuthClient(store, user, name, now);
      io.stdout.write(
        `OAuth client "${record.name}" acting as "${user.login}".\nclient_id: ${record.client_id}\n` +
          `client_secret (shown once): ${secret}\n`,
      );
      return 0;
    }
    case 'list': {
      const logins = new Map((await store.listUsers()).map((u) => [u.id, u.login]));
      for (const c of await store.listOAuthClients()) {
        const state = c.revoked ? 'revoked' : 'active';
        io.stdout.write(
          `${c.client_id}\t${logins.get(c.user_id)}\t${c.name}\tcreated ${c.created_utc}\t${state}\n`,
        );
      }
      return 0;
    }
    case 'revoke':
      if (!arg || !(await store.revokeOAuthClient(arg))) return fail(`no OAuth client "${arg ?? ''}"`);
      io.stdout.write(`Revoked OAuth client ${arg}.\n`);
      return 0;
    default:
      return fail(`client needs add, list or revoke, got "${sub ?? ''}"`);
  }
}

export const main = withCommonFlags(usersMain);

if (import.meta.main) await runMain(main);
