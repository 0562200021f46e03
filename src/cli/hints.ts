/**
 * What to do about a failure, in one line that names the flag, variable or setting that fixes it. The
 * commands print it after the error (or after the list of failed items), once.
 */

/** Where the failing command takes its credentials from. */
export type CredentialSource =
  /** `npm run import --target`, `npm run export --from`: the environment. */
  | { from: 'env'; env: NodeJS.ProcessEnv }
  /** A pipeline file's `target.auth`. */
  | { from: 'pipeline'; file: string; auth: string };

interface Failing {
  status?: number;
  code?: string;
  message: string;
}

const ENV_CREDENTIALS =
  'set CALSYNC_USER and CALSYNC_APP_PASSWORD (a user of the site and one of its application passwords), or CALSYNC_TOKEN';

/** The hint for an error (or an item failure) of a run against `target`, if there is one. */
export function hintFor(error: Failing, credentials: CredentialSource): string | undefined {
  if (error.status === 401) {
    if (credentials.from === 'pipeline')
      return credentials.auth === 'none'
        ? `hint: the target wants credentials: add target.auth to ${credentials.file}`
        : `hint: the target refused target.auth of ${credentials.file}: check the user and password or token`;
    const env = credentials.env;
    const given = env.CALSYNC_TOKEN
      ? 'CALSYNC_TOKEN'
      : env.CALSYNC_USER
        ? 'CALSYNC_USER/CALSYNC_APP_PASSWORD'
        : '';
    return given
      ? `hint: the target refused ${given}: check them (an application password, not the login password)`
      : `hint: the target wants credentials: ${ENV_CREDENTIALS}`;
  }
  if (error.status === 403)
    return 'hint: the user may not do this: importing needs an editor (or administrator) on the site';
  if (error.status === 404 && /\/(events|categories|tags|venues|organizers)\b/.test(error.message))
    return 'hint: no calendar API there: check the URL (the site root, e.g. https://site.example/wp-json) and --namespace (tribe/events/v1 for The Events Calendar)';
  if (/ECONNREFUSED/.test(`${error.code} ${error.message}`))
    return 'hint: nothing listens there: is the server running (npm run serve), and is the URL right?';
  if (/ENOTFOUND|EAI_AGAIN/.test(`${error.code} ${error.message}`))
    return 'hint: the host name does not resolve: check the URL';
  return undefined;
}

/** The hint for a run's item failures: the first one any failure has (they usually share a cause). */
export function hintForFailures(
  failures: readonly Failing[],
  credentials: CredentialSource,
): string | undefined {
  for (const f of failures) {
    const hint = hintFor(f, credentials);
    if (hint) return hint;
  }
  return undefined;
}
