/**
 * Child processes of a test, each started in a process group of its own, so that `killChildren()` (in an
 * `afterEach`) ends them and everything they started — whether the test passed or failed half-way. A
 * failed assertion before a test's own `kill` once left a child holding vitest's pipes open after its
 * summary until someone killed it by hand.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

/** Process group ids of the children started since the last `killChildren()`. */
const groups = new Set<number>();

/** `spawn`, in a new process group remembered for `killChildren`. */
export function spawnChild(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) groups.add(child.pid);
  return child;
}

/**
 * SIGKILLs every process group started by `spawnChild` (a group outlives its leader: a grandchild may
 * still run), then waits until the leaders are gone.
 */
export async function killChildren(): Promise<void> {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // ESRCH: the group is already gone.
    }
  }
  const pending = [...groups];
  groups.clear();
  // A group is gone when no process answers signal 0 at its id any more.
  const deadline = Date.now() + 5_000;
  while (pending.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
