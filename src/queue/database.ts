/**
 * Where the queue lives: `--database postgres://…` or `CALSYNC_DATABASE_URL`. Workers, the scheduler and
 * the shared host limits all meet in this one PostgreSQL database.
 */
export class DatabaseUrlError extends Error {}

export function databaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const url = flag ?? env.CALSYNC_DATABASE_URL;
  const origin = flag ? '--database' : 'CALSYNC_DATABASE_URL';
  if (!url)
    throw new DatabaseUrlError('no database: pass --database postgres://… or set CALSYNC_DATABASE_URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DatabaseUrlError(`${origin}: not a URL: expected postgres://user@host:port/database`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new DatabaseUrlError(`${origin}: expected a postgres:// URL, got ${parsed.protocol}//…`);
  return url;
}
