/**
 * The run lock: two runs of one pipeline must never overlap (a nightly job that runs long meets the next
 * one). A lock file created exclusively holds the owner's pid; a lock whose process is gone (killed, power
 * cut) is stale and taken over, so a crash never blocks the next night's run.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class LockedError extends Error {
  readonly code = 'pipeline_locked';
  readonly file: string;
  readonly pid: number;
  constructor(file: string, pid: number) {
    super(`another run (pid ${pid}) holds the lock ${file}; wait for it to finish`);
    this.file = file;
    this.pid = pid;
  }
}

/** Takes the lock at `file` or throws LockedError; returns the release function. */
export function acquireLock(file: string): () => void {
  mkdirSync(dirname(file), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number.parseInt(readText(file), 10);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new LockedError(file, pid);
      rmSync(file, { force: true }); // stale: its owner is gone
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
