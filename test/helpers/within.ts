/**
 * `within(ms, probe)`: polls `probe` every 20 ms until it is true, for at most `ms`; whether it became
 * true. For what another process did, which arrives by notice (several servers on one PostgreSQL).
 */
export async function within(ms: number, probe: () => Promise<boolean>): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
