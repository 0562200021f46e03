/** `problem(…)`: a SourceProblem whose message starts with where it is (`file:line: what`), for every source. */
import type { SourceProblem } from './record.ts';

export interface ProblemAt {
  file: string;
  line?: number;
  uid?: string;
  field?: string;
}

export function problem(
  severity: SourceProblem['severity'],
  code: string,
  message: string,
  at: ProblemAt,
): SourceProblem {
  const where = at.line === undefined ? at.file : `${at.file}:${at.line}`;
  const result: SourceProblem = {
    code,
    message: `${where}: ${message}`,
    origin: at.line === undefined ? { file: at.file } : { file: at.file, line: at.line },
    severity,
  };
  if (at.uid !== undefined) result.uid = at.uid;
  if (at.field !== undefined) result.field = at.field;
  return result;
}
