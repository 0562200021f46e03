/**
 * One request queue per remote host for the pipelines of a run (src/writer/host-queues.ts): pipelines of
 * one host share it, with the strictest limits any of them asks for; other hosts get their own.
 */
import { describe, expect, it } from 'vitest';
import { hostQueues } from '../../src/writer/host-queues.ts';

describe('hostQueues', () => {
  it('gives pipelines of one host one queue, with the lowest concurrency any of them asks for', () => {
    const queues = hostQueues([
      { host: 'site.example', concurrency: 4, requestsPerSecond: 10 },
      { host: 'site.example', concurrency: 2 },
      { host: 'other.example:8443' },
    ]);
    expect([...queues.keys()]).toEqual(['site.example', 'other.example:8443']);
    expect(queues.get('site.example')?.concurrency).toBe(2);
    // No limit named: a remote host's default, 4 (contract C.20).
    expect(queues.get('other.example:8443')?.concurrency).toBe(4);
  });

  it('holds every pipeline of a host while one of them waits out its rate', async () => {
    const queue = hostQueues([
      { host: 'a', requestsPerSecond: 1 },
      { host: 'a', requestsPerSecond: 5 },
    ]).get('a');
    if (!queue) throw new Error('no queue');
    let started = 0;
    for (let i = 0; i < 3; i++) queue.add(async () => started++);
    // 1 a second (the stricter of the two): one starts at once, the others wait for the next windows.
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toBe(1);
    queue.clear();
  });
});
