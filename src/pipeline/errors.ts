/**
 * Errors of the pipeline room. A ConfigError is the user's to fix (a missing file, an unsupported option):
 * the CLI prints its message and exits 2. Item failures are not errors here but results (apply.ts).
 */
export class ConfigError extends Error {
  readonly code = 'config_error';
}
