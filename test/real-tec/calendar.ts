/**
 * Small calendars for the repeated runs of the real-TEC suite (a WordPress write takes 50–600 ms): names and
 * texts the site renders differently from how they were sent (apostrophes, ampersands, quotes, dashes,
 * ellipses: contract C.22), an all-day event, zones on both sides of UTC, a description-less event.
 */

export interface SmallEvent {
  uid: string;
  title: string;
  start: string; // DTSTART value with its parameters, e.g. `;TZID=Europe/London:20270301T190000`
  end: string;
  description?: string;
  location?: string;
  organizer?: string;
  categories?: string[];
  url?: string;
  attach?: string;
}

export function smallEvents(n = 8): SmallEvent[] {
  const base: SmallEvent[] = [
    {
      uid: 'quiz@club.example',
      title: "St Mary's Quiz Night",
      start: ';TZID=Europe/London:20270305T193000',
      end: ';TZID=Europe/London:20270305T220000',
      description: 'Teams of up to six -- bring a pen... "Prizes" for the top three!\nDoors 7pm.',
      location: "St Mary's Church Hall, 12 Church Lane, Oxford",
      organizer: 'Film & Theatre Society',
      categories: ['Film & Theatre', "Children's"],
    },
    {
      uid: 'screening@club.example',
      title: 'Film & Theatre: "Casablanca" (1942)',
      start: ';TZID=America/New_York:20270312T190000',
      end: ';TZID=America/New_York:20270312T211500',
      description: 'A classic -- with an intro from our chair.',
      location: 'Riverside Cinema',
      organizer: 'Film & Theatre Society',
      categories: ['Film & Theatre'],
      url: 'https://club.example/casablanca',
    },
    {
      uid: 'fair@club.example',
      title: 'Spring Fair',
      start: ';VALUE=DATE:20270410',
      end: ';VALUE=DATE:20270412',
      description: 'Two days of stalls.',
      location: 'Town Square',
      categories: ['Markets'],
    },
    {
      uid: 'walk@club.example',
      title: 'Dawn Walk',
      start: ':20270420T050000Z',
      end: ':20270420T063000Z',
      location: "St Mary's Church Hall, 12 Church Lane, Oxford",
    },
  ];
  const more = Array.from({ length: Math.max(0, n - base.length) }, (_, i) => {
    const day = new Date(Date.UTC(2027, 4, 1 + i)).toISOString().slice(0, 10).replaceAll('-', '');
    return {
      uid: `talk-${i}@club.example`,
      title: `Talk ${i + 1}: Bees' Lives`,
      start: `;TZID=Asia/Kolkata:${day}T180000`,
      end: `;TZID=Asia/Kolkata:${day}T193000`,
      description: `Part ${i + 1} of the series.`,
      location: 'Library',
      organizer: "O'Brien Lectures",
      categories: ['Talks'],
    };
  });
  return [...base, ...more].slice(0, n);
}

const escapeText = (s: string) =>
  s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\n/g, '\\n');

export function ics(events: readonly SmallEvent[]): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync tests//real TEC//EN',
    'X-WR-TIMEZONE:Europe/London',
  ];
  for (const e of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${e.uid}`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART${e.start}`,
      `DTEND${e.end}`,
    );
    lines.push(`SUMMARY:${escapeText(e.title)}`);
    if (e.description) lines.push(`DESCRIPTION:${escapeText(e.description)}`);
    if (e.location) lines.push(`LOCATION:${escapeText(e.location)}`);
    if (e.organizer) lines.push(`ORGANIZER;CN="${e.organizer}":mailto:events@club.example`);
    if (e.categories) lines.push(`CATEGORIES:${e.categories.map(escapeText).join(',')}`);
    if (e.url) lines.push(`URL:${e.url}`);
    if (e.attach) lines.push(`ATTACH;FMTTYPE=image/png:${e.attach}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}
