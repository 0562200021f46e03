/** Remote sources (`source.url`): the fetch with its conditional GET, and its errors. */

export { SOURCE_ERRORS, type SourceErrorCode, SourceFetchError } from './errors.ts';
export {
  type Fetched,
  type FetchOptions,
  fetchSource,
  REMOTE_DEFAULTS,
  readBody,
  sourceUrl,
  type Validators,
} from './fetch.ts';
export { notCalendar, type SourceType } from './sniff.ts';
