/**
 * Loaded into the server process by bench/mixed.ts (`node --import ./bench/loop-probe.ts`): measures
 * how long the event loop stalls (perf_hooks' event-loop delay histogram, 1 ms resolution) and the CPU
 * time the process used, all its threads (on a busy machine a stall may be the OS running someone else;
 * CPU time per request is what the server itself costs). On SIGUSR2 it prints `loop-probe
 * {"max_ms":…,"p99_ms":…,"mean_ms":…,"cpu_ms":…}` on stdout and starts a new measurement, so the
 * benchmark can take the figures of its measured phase alone.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
const ms = (ns: number) => Math.round(ns / 1e4) / 100;
let cpu = process.cpuUsage();

process.on('SIGUSR2', () => {
  const figures = {
    max_ms: ms(histogram.max),
    p99_ms: ms(histogram.percentile(99)),
    mean_ms: ms(histogram.mean),
    cpu_ms: Math.round(((u) => (u.user + u.system) / 1000)(process.cpuUsage(cpu))),
  };
  cpu = process.cpuUsage();
  process.stdout.write(`loop-probe ${JSON.stringify(figures)}\n`);
  histogram.reset();
});
