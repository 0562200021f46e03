// Every fixture in test/fixtures/ics (see its README.md), read by readIcs (node-ical for properties, our own
// expansion) and by the ical.js oracle (oracle.ts): the same occurrences in the window — start and end
// instants, all-day flag, title (so overrides are applied), cancelled ones left out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readIcs } from '../../../src/sources/ics/index.ts';
import { DEFAULT_ZONE, FIXTURE_WINDOW, FIXTURES, fixtureFiles } from './fixtures.ts';
import { type Occurrence, oracleOccurrences, ourOccurrences } from './oracle.ts';

interface Difference {
  why: string;
  /** Our occurrences of that UID, `start end`, checked by hand against the RFC. */
  expected: string[];
}

/** Where we deliberately differ from ical.js: per fixture and UID, why, and what we give instead. */
const DIFFERENCES: Record<string, Record<string, Difference>> = {
  'dst-gap-and-overlap.ics': {
    'dst-gap-single': {
      why: 'RFC 5545 §3.3.5: a wall time in the spring-forward gap takes the offset before the gap (02:30 EST = 03:30 EDT); ical.js takes the one after (01:30 EST)',
      expected: ['2027-03-14T07:30:00Z 2027-03-14T08:00:00Z'],
    },
    'dst-overlap-daily': {
      why: 'RFC 5545 §3.3.5: a wall time that occurs twice (01:30 on 7 November) is the first one, in EDT; ical.js takes the second',
      expected: [
        '2027-11-05T05:30:00Z 2027-11-05T06:00:00Z',
        '2027-11-06T05:30:00Z 2027-11-06T06:00:00Z',
        '2027-11-07T05:30:00Z 2027-11-07T07:00:00Z',
        '2027-11-08T06:30:00Z 2027-11-08T07:00:00Z',
      ],
    },
  },
  'wordpress-tec-export.ics': {
    '10125-1825000000-1825014400@jazz.example.it': {
      why: 'DTEND 02:00 on the night Rome falls back is the first 02:00 (CEST, RFC 5545 §3.3.5); ical.js takes the second',
      expected: ['2027-10-30T20:00:00Z 2027-10-31T00:00:00Z'],
    },
  },
  'thunderbird-hourly.ics': {
    'hourly-watch-1': {
      why: 'FREQ=HOURLY steps in elapsed time in rrule-temporal: "every 3 hours" stays 3 hours apart through the spring-forward night; ical.js steps on the wall clock (and puts 02:00 in the gap at 01:00 CET)',
      expected: [
        '2027-03-27T19:00:00Z 2027-03-27T19:30:00Z',
        '2027-03-27T22:00:00Z 2027-03-27T22:30:00Z',
        '2027-03-28T01:00:00Z 2027-03-28T01:30:00Z',
        '2027-03-28T04:00:00Z 2027-03-28T04:30:00Z',
        '2027-03-28T07:00:00Z 2027-03-28T07:30:00Z',
        '2027-03-28T10:00:00Z 2027-03-28T10:30:00Z',
        '2027-03-28T13:00:00Z 2027-03-28T13:30:00Z',
        '2027-03-28T16:00:00Z 2027-03-28T16:30:00Z',
      ],
    },
  },
  'yearly-byweekno-byyearday.ics': {
    'byweekno-0001': {
      why: 'ical.js 2.2 ignores BYWEEKNO on FREQ=YEARLY and gives every Monday; ISO week 20 of 2027 starts on Monday 17 May',
      expected: ['2027-05-17T06:00:00Z 2027-05-17T07:00:00Z'],
    },
  },
  'nextcloud-dtstart-not-matching.ics': {
    'odd-start-0001': {
      why: 'RFC 5545 §3.8.5.3: DTSTART is always the first instance and counts towards COUNT (Sunday + 4 rule days); ical.js drops a DTSTART the rule does not produce and gives 5 rule days',
      expected: [
        '2027-01-03T16:00:00Z 2027-01-03T17:00:00Z',
        '2027-01-04T16:00:00Z 2027-01-04T17:00:00Z',
        '2027-01-06T16:00:00Z 2027-01-06T17:00:00Z',
        '2027-01-11T16:00:00Z 2027-01-11T17:00:00Z',
        '2027-01-13T16:00:00Z 2027-01-13T17:00:00Z',
      ],
    },
    'odd-start-0002': {
      why: 'RFC 5545 §3.8.5.3: DTSTART (a Sunday) is the first instance even though the rule says Tuesdays; ical.js drops it',
      expected: [
        '2027-01-03T08:00:00Z 2027-01-03T09:00:00Z',
        '2027-01-05T08:00:00Z 2027-01-05T09:00:00Z',
        '2027-01-12T08:00:00Z 2027-01-12T09:00:00Z',
        '2027-01-19T08:00:00Z 2027-01-19T09:00:00Z',
        '2027-01-26T08:00:00Z 2027-01-26T09:00:00Z',
        '2027-02-02T08:00:00Z 2027-02-02T09:00:00Z',
      ],
    },
  },
  'google-count1-exdate.ics': {
    '2kq8v1c0f4m9s7t3a5b6d8e0g2@google.com': {
      why: "RFC 5545 §3.8.5.3: DTSTART (a Sunday) is the COUNT=1 series' one instance, and the EXDATE removes it; ical.js drops the off-rule DTSTART and gives the first Tuesday",
      expected: [],
    },
    '5hr2w6d1g8n3p7q9b4c5f0j1k6@google.com': {
      why: 'RFC 5545 §3.8.5.3: DTSTART (a Sunday) and the first Tuesday are the COUNT=2 instances, the EXDATE removes the Tuesday; ical.js drops DTSTART and gives two Tuesdays, the second not excluded',
      expected: ['2027-01-10T09:00:00Z 2027-01-10T11:00:00Z'],
    },
  },
};

/** Problems a fixture is there to cause, as `code@line`; every other fixture reads without any. */
const EXPECTED_PROBLEMS: Record<string, string[]> = {
  'thunderbird-no-summary.ics': ['ics_no_summary@22', 'ics_no_summary@31'],
};

const files = fixtureFiles();

const spans = (list: Occurrence[]) => list.map((o) => `${o.start} ${o.end}`);

describe('readIcs against the ical.js oracle', () => {
  it('has at least 40 fixtures, each saying what it covers', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    for (const file of files)
      expect(readFileSync(join(FIXTURES, file), 'utf8'), file).toMatch(/^X-CALSYNC-COVERS:.+/m);
  });

  for (const file of files) {
    it(`gives the oracle's occurrences for ${file}`, () => {
      const bytes = readFileSync(join(FIXTURES, file));
      const result = readIcs(bytes, { file, window: FIXTURE_WINDOW, defaultZone: DEFAULT_ZONE });
      expect(result.problems.map((p) => `${p.code}@${p.origin.line}`)).toEqual(EXPECTED_PROBLEMS[file] ?? []);
      const differences = DIFFERENCES[file] ?? {};
      const deliberate = (o: Occurrence) => Object.hasOwn(differences, o.uid);
      const ours = ourOccurrences(result.records, DEFAULT_ZONE);
      const oracle = oracleOccurrences(bytes.toString('utf8'), FIXTURE_WINDOW, DEFAULT_ZONE);
      expect(oracle.length).toBeGreaterThan(0);
      expect(ours.filter((o) => !deliberate(o))).toEqual(oracle.filter((o) => !deliberate(o)));
      for (const [uid, difference] of Object.entries(differences)) {
        expect(spans(ours.filter((o) => o.uid === uid)), difference.why).toEqual(difference.expected);
        expect(spans(oracle.filter((o) => o.uid === uid)), `ical.js now agrees: ${uid}`).not.toEqual(
          difference.expected,
        );
      }
    });
  }
});
