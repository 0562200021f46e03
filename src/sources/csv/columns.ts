// Header → canonical field. Public: CSV_FIELDS, CsvField, ColumnMap, resolveColumns.
//
// Headers are matched case-, space- and punctuation-insensitively (`Event Start Date`, `event_start_date`
// and `EVENT-START-DATE` are one name). The aliases start with the column keys of The Events Calendar's
// CSV importer (so a file written for TEC, or by our own CSV writer, maps without configuration), then the
// labels TEC's import screen shows for them ("Event Time Zone", "All Day Event"…), then what spreadsheets
// and other calendar exports call them (Outlook's "Subject"/"Location", "Start", "Price"…), then Outlook's
// export headers in German, French, Italian and Spanish and the plain words of those languages. An explicit
// `columns` mapping is applied first and wins: its header is taken before any alias is looked at.

export const CSV_FIELDS = [
  'id',
  'title',
  'description',
  'excerpt',
  'start_date',
  'start_time',
  'end_date',
  'end_time',
  'timezone',
  'all_day',
  'url',
  'image',
  'featured',
  'sticky',
  'hide_from_listings',
  'show_map',
  'show_map_link',
  'cost',
  'currency_symbol',
  'currency_code',
  'currency_position',
  'rrule',
  'categories',
  'tags',
  'venue_id',
  'venue_name',
  'venue_address',
  'venue_city',
  'venue_state',
  'venue_province',
  'venue_zip',
  'venue_country',
  'venue_phone',
  'venue_website',
  'organizer_id',
  'organizer_name',
  'organizer_email',
  'organizer_phone',
  'organizer_website',
] as const;

export type CsvField = (typeof CSV_FIELDS)[number];

/** The cell index of each field found in the header. */
export type ColumnMap = Partial<Record<CsvField, number>>;

// biome-ignore format: one field per line reads better
const ALIASES: Record<CsvField, string[]> = {
  id: ['id', 'event_id', 'uid', 'event uid'],
  title: ['event_name', 'event title', 'title', 'name', 'subject', 'summary', 'event', 'betreff', 'titel', 'veranstaltung', 'termin', 'spiel', 'match', 'partido', 'partita', 'rencontre', 'begegnung', 'objet', 'titre', 'événement', 'oggetto', 'titolo', 'evento', 'asunto', 'título', 'nombre'],
  description: ['event_description', 'description', 'content', 'body', 'details', 'beschreibung', 'descrizione', 'descripción'],
  excerpt: ['event_excerpt', 'excerpt'],
  start_date: ['event_start_date', 'start date', 'start', 'date', 'start datetime', 'start date time', 'starts', 'begins', 'beginnt am', 'datum', 'beginn', 'startdatum', 'début', 'date de début', 'data inizio', 'data', 'fecha de comienzo', 'fecha de inicio', 'fecha', 'inicio'],
  start_time: ['event_start_time', 'start time', 'time', 'beginnt um', 'uhrzeit', 'zeit', 'startzeit', 'heure de début', 'heure', 'ora inizio', 'ora', 'comienzo', 'hora de inicio', 'hora'],
  end_date: ['event_end_date', 'end date', 'end', 'end datetime', 'end date time', 'ends', 'endet am', 'ende', 'enddatum', 'fin', 'date de fin', 'data fine', 'fecha de finalización', 'fecha de fin'],
  end_time: ['event_end_time', 'end time', 'endet um', 'endzeit', 'heure de fin', 'ora fine', 'finalización', 'hora de fin'],
  timezone: ['event_timezone', 'event time zone', 'timezone', 'time zone', 'tz', 'zone', 'zeitzone', 'fuseau horaire'],
  all_day: ['event_all_day', 'all day event', 'all day', 'allday', 'ganztägiges ereignis', 'ganztägig', 'journée entière', 'evento di tutto il giorno', 'tutto il giorno', 'todo el día', 'evento de todo el día'],
  url: ['event_website', 'event url', 'website', 'url', 'link', 'webseite'],
  image: ['featured_image', 'event featured image', 'image', 'image url', 'bild'],
  featured: ['event_featured', 'feature_event', 'featured', 'featured event'],
  sticky: ['event_sticky', 'sticky in month view'],
  hide_from_listings: ['event_hide', 'hide from event listings'],
  show_map: ['event_show_map', 'show google map'],
  show_map_link: ['event_show_map_link', 'show google map link'],
  cost: ['event_cost', 'cost', 'price', 'preis', 'eintritt', 'kosten', 'prix', 'tarif', 'prezzo', 'precio'],
  currency_symbol: ['event_currency_symbol', 'currency symbol', 'currency'],
  currency_code: ['event_currency_code', 'currency code'],
  currency_position: ['event_currency_position', 'currency position'],
  rrule: ['rrule', 'recurrence', 'recurrence rule', 'repeat'],
  categories: ['event_category', 'event categories', 'categories', 'category', 'kategorien', 'kategorie', 'catégories', 'catégorie', 'categorie', 'categoria', 'categorías', 'categoría'],
  tags: ['event_tags', 'event tag', 'tags', 'tag', 'schlagwörter'],
  venue_id: ['venue_id', 'event venue id'],
  venue_name: ['event_venue_name', 'venue_name', 'venue', 'location', 'place', 'ort', 'veranstaltungsort', 'spielort', 'emplacement', 'lieu', 'luogo', 'ubicación', 'lugar'],
  venue_address: ['venue_address', 'address', 'street address', 'adresse', 'straße', 'indirizzo', 'dirección'],
  venue_city: ['venue_city', 'city', 'stadt', 'ville', 'città', 'ciudad'],
  venue_state: ['venue_state', 'state'],
  venue_province: ['venue_province', 'province'],
  venue_zip: ['venue_zip', 'zip', 'zip code', 'postal code', 'postcode', 'plz'],
  venue_country: ['venue_country', 'country', 'land', 'pays'],
  venue_phone: ['venue_phone'],
  venue_website: ['venue_website', 'venue url'],
  organizer_id: ['organizer_id', 'event organizer id'],
  organizer_name: ['event_organizer_name', 'organizer_name', 'organizer', 'organizers', 'organiser', 'organisers', 'host', 'veranstalter', 'organisateur', 'organizzatore', 'organizador', ],
  organizer_email: ['organizer_email', 'organizer e-mail', 'email', 'e-mail'],
  organizer_phone: ['organizer_phone'],
  organizer_website: ['organizer_website', 'organizer url'],
};

// TEC importer keys with no place in an EventRecord (display switches of the site): known, so not
// reported as unknown, but not read.
const IGNORED = [
  // Outlook's meeting organizer is the mailbox that sent the invitation ("Lee, Ana"), not who runs the event.
  'meeting organizer',
  'besprechungsplanung',
  "organisateur d'une réunion",
  'organizzatore riunione',
  'organizador de la reunión',
  'event_allow_comments',
  'event_allow_trackbacks',
  'event_comment_status',
  // Outlook's columns that have no place in an event of the API (every language it exports in).
  'reminder on/off',
  'reminder date',
  'reminder time',
  'required attendees',
  'optional attendees',
  'meeting resources',
  'billing information',
  'mileage',
  'priority',
  'private',
  'sensitivity',
  'show time as',
  'erinnerung ein/aus',
  'erinnerung am',
  'erinnerung um',
  'erforderliche teilnehmer',
  'optionale teilnehmer',
  'besprechungsressourcen',
  'abrechnungsinformationen',
  'reisekilometer',
  'priorität',
  'privat',
  'vertraulichkeit',
  'zeitspanne zeigen als',
  'besprechungsplanung',
  'rappel actif/inactif',
  'date du rappel',
  'heure du rappel',
  'participants obligatoires',
  'participants facultatifs',
  'ressources de la réunion',
  'afficher la disponibilité',
  'privé',
  'priorité',
  'promemoria on/off',
  'data promemoria',
  'ora promemoria',
  'partecipanti necessari',
  'partecipanti facoltativi',
  'privato',
  'priorità',
  'aviso encendido/apagado',
  'fecha del aviso',
  'hora del aviso',
  'asistentes obligatorios',
  'asistentes opcionales',
  'privado',
  'prioridad',
].map(normalizeHeader);

/** `Event Start Date` → `eventstartdate`: the form headers are compared in. */
export function normalizeHeader(header: string): string {
  return header
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

const BY_ALIAS = new Map<string, CsvField>();
for (const field of CSV_FIELDS) {
  for (const alias of [field, ...ALIASES[field]]) {
    const key = normalizeHeader(alias);
    // The first field to claim an alias keeps it: the list above is in order of precedence.
    if (!BY_ALIAS.has(key)) BY_ALIAS.set(key, field);
  }
}
// `event_name` and `event_start_date` claim `eventname`/`eventstartdate` above; TEC's labels add the
// `event` prefix to most names, so accept it wherever the bare name is an alias.
for (const [key, field] of [...BY_ALIAS]) {
  if (!BY_ALIAS.has(`event${key}`)) BY_ALIAS.set(`event${key}`, field);
}

// Headers that hold the day of an event, and those that then hold its start and end time (else dates).
const DAY_HEADERS = new Set(
  ['date', 'day', 'datum', 'tag', 'fecha', 'data', 'jour', 'giorno'].map(normalizeHeader),
);
const TIME_BESIDE_DAY = new Map<string, CsvField>([
  ...['start', 'starts', 'begin', 'begins', 'beginn', 'von', 'début', 'inizio', 'inicio', 'comienzo'].map(
    (name): [string, CsvField] => [normalizeHeader(name), 'start_time'],
  ),
  ...['end', 'ends', 'ende', 'bis', 'fin', 'fine', 'finalización'].map((name): [string, CsvField] => [
    normalizeHeader(name),
    'end_time',
  ]),
]);

export interface ResolvedColumns {
  columns: ColumnMap;
  /** Headers that match no field and no ignored TEC key, as written. */
  unknown: string[];
  /** Fields of the `columns` option whose header is not in the file. */
  absent: CsvField[];
}

/** Which cell holds which field: `mapping` (field → header) first, then the aliases; first column wins. */
export function resolveColumns(
  header: readonly string[],
  mapping: Partial<Record<CsvField, string>>,
): ResolvedColumns {
  const names = header.map(normalizeHeader);
  const columns: ColumnMap = {};
  const taken = new Set<number>();
  const absent: CsvField[] = [];
  for (const [field, wanted] of Object.entries(mapping) as [CsvField, string][]) {
    const at = names.indexOf(normalizeHeader(wanted));
    if (at === -1) absent.push(field);
    else {
      columns[field] = at;
      taken.add(at);
    }
  }
  const unknown: string[] = [];
  const hasDay = names.some((name) => DAY_HEADERS.has(name));
  names.forEach((name, at) => {
    if (taken.has(at)) return;
    // `Datum;Beginn;Ende`: beside a column of days, "start" and "end" are times of day.
    const field = hasDay ? (TIME_BESIDE_DAY.get(name) ?? BY_ALIAS.get(name)) : BY_ALIAS.get(name);
    if (field === undefined) {
      if (name !== '' && !IGNORED.includes(name)) unknown.push(header[at]);
    } else if (columns[field] === undefined && !(field in mapping)) {
      columns[field] = at;
    }
  });
  return { columns, unknown, absent };
}
