// Time-of-day cells. Public: readTime, readTimeRange. Pure.
//
// 24-hour `19:30`, `19:30:00`, `19:30:00.000`, `19.30`, `19h30`, `19 Uhr`, `19:30 h`; 12-hour `7:30 pm`,
// `7pm`, `7:30:00 P.M.`, `7 p. m.`; and a start and end in one cell (`15:15 - 17:45 Uhr`, `7–9 pm`,
// `19:00 bis 22:00`), which club and meetup lists write instead of two columns.

import { pad2 } from '../../model/civil-time.ts';
import type { Read } from './dates.ts';

const H24 = /^(\d{1,2})(?:[:.h](\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;
const H12 = /^(\d{1,2})(?:[:.](\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;
// Words after a time meaning "o'clock" (de Uhr, fr/it h, es horas, en hrs).
const OCLOCK = /\s*(?:uhr|h|hrs?|horas?|heures?|ore)\.?$/i;
const RANGE = /^(.+?)\s*(?:-|–|—|\bbis\b|\bto\b|\buntil\b)\s*(.+)$/i;

/** A time cell as `HH:MM:SS`. */
export function readTime(cell: string): Read<string> {
  const text = cell.trim().replace(OCLOCK, '');
  let hour: number;
  let minute: number;
  let second: number;
  const h24 = H24.exec(text);
  const m = h24 ? null : H12.exec(text);
  if (h24 && (h24[2] !== undefined || text !== cell.trim())) {
    [hour, minute, second] = [Number(h24[1]), Number(h24[2] ?? 0), Number(h24[3] ?? 0)];
  } else if (m) {
    [hour, minute, second] = [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
    if (hour < 1 || hour > 12) return { ok: false, reason: `${JSON.stringify(cell)}: hour is not 1-12` };
    hour = (hour % 12) + (m[4].toLowerCase() === 'p' ? 12 : 0); // 12 am is midnight, 12 pm noon
  } else {
    return { ok: false, reason: `expected a time as HH:MM or h:mm am/pm, got ${JSON.stringify(cell)}` };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, reason: `${JSON.stringify(cell)} is no time of day` };
  }
  return { ok: true, value: `${pad2(hour)}:${pad2(minute)}:${pad2(second)}` };
}

/** A time cell that may hold a range: its start, and its end when it has one. */
export function readTimeRange(cell: string): Read<{ start: string; end?: string }> {
  const text = cell.trim().replace(OCLOCK, '');
  const single = readTime(cell);
  if (single.ok) return { ok: true, value: { start: single.value } };
  const range = RANGE.exec(text);
  if (!range) return single;
  const end = readTime(range[2]);
  let start = readTime(range[1]);
  // `7-9 pm`: the start takes the end's am/pm.
  const meridiem = /[ap]\.?\s*m\.?$/i.exec(range[2]);
  if (!start.ok && meridiem) start = readTime(`${range[1]} ${meridiem[0]}`);
  if (!start.ok || !end.ok) return single;
  return { ok: true, value: { start: start.value, end: end.value } };
}
