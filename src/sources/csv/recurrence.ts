// A row with an RRULE cell → its occurrences in the window. Public: expandRow.
//
// The row's start, end and rule are handed to the .ics reader as one VEVENT, so a CSV series is expanded
// exactly as the same series in an .ics file (DST, COUNT, UNTIL, BYDAY…: sources/ics/recurrence.ts), and
// its occurrences get the same instance keys (`<row key>@<instance>`).

import { readIcs } from '../ics/index.ts';
import type { EventRecord, TimeValue, Window } from '../record.ts';

export interface Expanded {
  records: EventRecord[];
  /** Why the rule could not be used (the row is then read as a single event). */
  problem?: string;
}

export function expandRow(record: EventRecord, rule: string, window: Window): Expanded {
  const text = rule.trim().replace(/^RRULE:/i, '');
  if (!/^[A-Z0-9=;,:+-]+$/i.test(text) || !/FREQ=/i.test(text)) {
    return {
      records: [record],
      problem: `${JSON.stringify(rule)} is no RRULE (expected e.g. FREQ=WEEKLY;COUNT=10)`,
    };
  }
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    `UID:${record.key}`,
    property('DTSTART', record.start),
    property('DTEND', record.end),
    `RRULE:${text}`,
    'SUMMARY:row',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
  const result = readIcs(Buffer.from(ics), { file: record.origin.file, window });
  const bad = result.problems.find((p) => p.severity === 'error' || p.code === 'ics_bad_rrule');
  if (bad)
    return {
      records: [record],
      problem: `RRULE ${JSON.stringify(rule)}: ${bad.message.replace(/^[^:]*: /, '')}`,
    };
  return {
    records: result.records.map((r) => ({
      ...record,
      key: r.key,
      instance: r.instance,
      start: sameKind(r.start, record.start),
      end: sameKind(r.end, record.end),
    })),
  };
}

const basic = (local: string) => local.replace(/[-:]/g, '').replace(' ', 'T');

function property(name: string, value: TimeValue): string {
  if (value.kind === 'date') return `${name};VALUE=DATE:${value.date.replace(/-/g, '')}`;
  if (value.kind === 'floating') return `${name}:${basic(value.local)}`;
  if (value.zone === 'UTC') return `${name}:${basic(value.local)}Z`;
  return `${name};TZID=${value.zone}:${basic(value.local)}`;
}

// The .ics reader marks a zone it was not given as `floating`; the row's own kind is what it was.
function sameKind(read: TimeValue, row: TimeValue): TimeValue {
  if (read.kind === 'zoned' && row.kind === 'zoned')
    return { kind: 'zoned', local: read.local, zone: row.zone };
  return read;
}
