/**
 * The source stage of a run: a file or a URL (`source.path`, `source.url`) read into event records by the
 * .ics or CSV reader. Public: SourceSpec, openSource (an .ics file opened to be read a batch at a time as
 * the run goes: sources/ics/stream.ts), readSource (every record at once), wholeOf, sourceLabel,
 * cacheFingerprints.
 *
 * A URL is fetched with a conditional GET when the last successful run left validators (sources/remote):
 * a 304 means nothing to read, plan or write. The short-cut is only taken when nothing else the result
 * depends on changed since (`cacheFingerprints`): the definition's source options, mapping and policies —
 * and, for a calendar with recurring series, the day, because the recurrence window slides with it and new
 * occurrences enter it even when the feed is the same.
 */
import { createReadStream, existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import type { CsvOptions } from '../sources/csv/index.ts';
import type { LinkedDetails, LinkedKind } from '../sources/csv/linked.ts';
import type { EventRecord, SourceProblem, SourceResult, Window } from '../sources/record.ts';
import { SOURCE_ERRORS, SourceFetchError } from '../sources/remote/errors.ts';
import type { Validators } from '../sources/remote/index.ts';
import { looksLike } from '../sources/remote/sniff.ts';
import { hashOf } from './desired.ts';
import { ConfigError } from './errors.ts';
import type { RunSpec } from './run.ts';

export interface SourceSpec {
  type: 'ics' | 'csv';
  /** A file (absolute), or: */
  path?: string;
  /** an http(s) or webcal URL. */
  url?: string;
  /** URL sources: idle timeout and size limit (sources/remote REMOTE_DEFAULTS). */
  timeoutMs?: number;
  maxBytes?: number;
  delimiter?: CsvOptions['delimiter'];
  encoding?: CsvOptions['encoding'];
  dateFormat?: string;
  columns?: Record<string, string>;
  /** CSV: false when the first row is an event (`--no-header`); default detected. */
  header?: boolean;
  /** CSV: what the rows are (`--kind`); default found from the header (TEC's venue_name, organizer_name). */
  kind?: 'events' | 'venues' | 'organizers';
}

export type SourceRead =
  | { notModified: true }
  | {
      notModified: false;
      result: SourceResult;
      /** A URL's validators, to keep once the run succeeds. */
      validators?: Validators;
      /** The source has recurring series: its result depends on the window too. */
      hasSeries: boolean;
    };

/**
 * A source read as it is used (an .ics file: sources/ics/stream.ts): its records in batches, at most once,
 * its problems complete once the batches have ended.
 */
export interface SourceStream {
  calendar: SourceResult['calendar'];
  problems: SourceProblem[];
  /** Records or VEVENTs to come (0: an empty source). */
  total: number;
  records(size: number): AsyncGenerator<EventRecord[]>;
  /** A guess at the records still to come, for a progress bar. */
  left(): number;
}

/** What `openSource` gives: a source read whole (URLs, CSV), or one to read in batches (an .ics file). */
export type OpenedSource = SourceRead | { notModified: false; stream: SourceStream };

/** `onParse`: VEVENTs of an .ics read so far and its total, as the reader goes (a progress bar). */
export async function readSource(
  spec: RunSpec,
  window: Window,
  validators?: Validators,
  onParse?: (done: number, total: number) => void,
): Promise<SourceRead> {
  const opened = await openSource(spec, window, validators, onParse);
  if (opened.notModified || !('stream' in opened)) return opened;
  const result = await wholeOf(opened.stream);
  return { notModified: false, result, hasSeries: result.records.some((r) => r.instance !== undefined) };
}

/** A source stream's records and problems at once. */
export async function wholeOf(stream: SourceStream): Promise<SourceResult> {
  const records: EventRecord[] = [];
  for await (const batch of stream.records(4096)) for (const r of batch) records.push(r);
  return { records, problems: stream.problems, calendar: stream.calendar };
}

/**
 * Like readSource, but an .ics file is not read yet: only checked, and its calendar's parts read (a first
 * pass over it), so that a run can take its records a batch at a time.
 */
export async function openSource(
  spec: RunSpec,
  window: Window,
  validators?: Validators,
  onParse?: (done: number, total: number) => void,
): Promise<OpenedSource> {
  const { source } = spec;
  const file = sourceLabel(source);
  const defaultZone = spec.mapping.timezone;
  // Each reader is loaded when a run reads its kind of source (a run loads one of them, not both).
  const read = async (bytes: AsyncIterable<Uint8Array> | Uint8Array): Promise<SourceResult> => {
    if (source.type === 'ics') {
      const { readIcs } = await import('../sources/ics/index.ts');
      const all = bytes instanceof Uint8Array ? bytes : await (await remote()).readBody(bytes);
      return readIcs(all, { file, window, defaultZone, onProgress: onParse });
    }
    const { readCsv } = await import('../sources/csv/index.ts');
    return readCsv(bytes, {
      file,
      columns: source.columns,
      dateFormat: source.dateFormat,
      delimiter: source.delimiter,
      encoding: source.encoding,
      header: source.header,
      defaultZone,
      window,
    });
  };
  const done = (result: SourceResult, v?: Validators): SourceRead => ({
    notModified: false,
    result,
    validators: v,
    hasSeries: result.records.some((r) => r.instance !== undefined),
  });

  if (source.url) {
    const { fetchSource, readBody } = await remote();
    const fetched = await fetchSource(source.url, {
      type: source.type,
      timeoutMs: source.timeoutMs,
      maxBytes: source.maxBytes,
      validators,
    });
    if (fetched.notModified) return { notModified: true };
    let result: SourceResult;
    try {
      const kind = source.type === 'csv' ? (source.kind ?? 'events') : 'events';
      result =
        kind === 'events'
          ? await read(fetched.body)
          : await (await linkedCsv()).standaloneOf(await readBody(fetched.body), kind, file);
    } finally {
      await fetched.close();
    }
    // A download that ends inside the calendar lost events: planning from it would delete them.
    const cut = result.problems.find((p) => p.code === 'ics_truncated');
    if (cut)
      throw new SourceFetchError(
        SOURCE_ERRORS.truncated,
        fetched.url,
        `the calendar is cut short (${cut.message})`,
        200,
      );
    return done(result, fetched.validators);
  }
  if (!source.path) throw new ConfigError(`${spec.name}: the source has neither a path nor a url`);
  try {
    if (source.type === 'csv') {
      const head = await readHead(source.path);
      refuseNotText(file, head, 'csv');
      const { standaloneOf, linkedKindOf } = await linkedCsv();
      const kind = source.kind ?? kindOf(head, linkedKindOf);
      if (kind !== 'events') return done(await standaloneOf(await readFile(source.path), kind, file));
      return done(await besideCsv(source.path, await read(createReadStream(source.path))));
    }
    const path = source.path;
    const head = await readHead(path, HEAD);
    refuseNotText(file, head, 'ics', true);
    const { streamIcs } = await import('../sources/ics/stream.ts');
    const stream = await streamIcs(() => createReadStream(path), {
      file,
      window,
      defaultZone,
      onProgress: onParse,
    });
    if (!stream.sawCalendar && !stream.encoding?.startsWith('utf-16')) throw noCalendar(file, head);
    return { notModified: false, stream };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new ConfigError(`${file}: no such file`);
    if (e.code === 'EISDIR') throw new ConfigError(`${file}: is a directory, expected a .ics or .csv file`);
    throw err;
  }
}

/**
 * A file that is no calendar at all (a saved web page, a binary file renamed .ics, an Excel workbook
 * named .csv) stops the run with one line naming what it is, instead of a problem per line of it. An
 * .ics with no BEGIN:VCALENDAR anywhere is not a calendar either.
 */
function refuseNotText(file: string, bytes: Uint8Array, type: 'ics' | 'csv', headOnly = false): void {
  const start = Buffer.from(bytes.subarray(0, HEAD)).toString('latin1');
  const looks = looksLike(start);
  const expected = type === 'ics' ? 'an iCalendar (.ics) file' : 'a CSV file';
  if (looks) throw new ConfigError(`${file}: this is ${looks}, not ${expected}`);
  if (headOnly || type !== 'ics') return;
  const utf16 = /^(?:\u00fe\u00ff|\u00ff\u00fe)/.test(start);
  if (!utf16 && !/BEGIN:VCALENDAR/i.test(Buffer.from(bytes).toString('latin1')))
    throw noCalendar(file, bytes);
}

function noCalendar(file: string, head: Uint8Array): ConfigError {
  const start = Buffer.from(head.subarray(0, HEAD)).toString('latin1');
  return new ConfigError(
    `${file}: not a calendar: an iCalendar file has BEGIN:VCALENDAR, this one has none (it begins "${start.slice(0, 40).replace(/\s+/g, ' ').trim()}")`,
  );
}

/** The fetch of URL sources (undici), loaded only by a run that has one. */
const remote = () => import('../sources/remote/fetch.ts');
/** TEC's venues and organizers CSV files, loaded only by a CSV run. */
const linkedCsv = () => import('../sources/csv/linked.ts');

/** Bytes looked at to tell what a file is. */
const HEAD = 512;

/** The start of a file: enough to tell what it is, and to hold a CSV header line. */
async function readHead(path: string, size = 4096): Promise<Uint8Array> {
  const handle = await open(path);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(size), 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** What a CSV file's rows are, by its first line: TEC's venues and organizers files name their kind. */
function kindOf(
  head: Uint8Array,
  linkedKindOf: (header: string[]) => LinkedKind | undefined,
): 'events' | LinkedKind {
  const first = Buffer.from(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0];
  return linkedKindOf(first.split(/[,;\t|]/).map((cell) => cell.replace(/^"|"$/g, ''))) ?? 'events';
}

/**
 * An events CSV with the venues and organizers files of its export beside it (`x.venues.csv`,
 * `x.organizers.csv`): their fields filled into the venues and organizers the events name.
 */
async function besideCsv(path: string, result: SourceResult): Promise<SourceResult> {
  const { linkedFileOf, readLinkedCsv, withLinked } = await linkedCsv();
  const linked: LinkedDetails = { venues: new Map(), organizers: new Map() };
  const problems = [...result.problems];
  let found = false;
  for (const kind of ['venues', 'organizers'] as const) {
    const file = linkedFileOf(path, kind);
    if (file === path || !existsSync(file)) continue;
    found = true;
    const read = await readLinkedCsv(await readFile(file), kind, sourceLabel({ type: 'csv', path: file }));
    problems.push(...read.problems);
    for (const [name, item] of read.items) (linked[kind] as Map<string, typeof item>).set(name, item);
  }
  return found ? { ...withLinked(result, linked), problems } : result;
}

/** The source as messages and origins name it: the URL, or the path relative to the current folder. */
export function sourceLabel(source: SourceSpec): string {
  if (source.url) return source.url;
  const path = source.path ?? '';
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/**
 * What a cached 304 stands for: the fingerprint of everything besides the feed's bytes that shapes the
 * run's result — `plain` for a calendar without recurring series, `windowed` (with the window's days) for
 * one with them.
 */
export function cacheFingerprints(spec: RunSpec, window: Window): { plain: string; windowed: string } {
  const base = { source: spec.source, mapping: spec.mapping, policies: spec.policies };
  const days = [window.from, window.to].map((d) => d.toISOString().slice(0, 10));
  return { plain: hashOf({ ...base, window: null }), windowed: hashOf({ ...base, window: days }) };
}
