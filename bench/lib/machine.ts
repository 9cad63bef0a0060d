// The machine the figures come from: CPUs, and how busy it is with other work. On a shared
// machine another process's CPU use lowers both the service and the bare server, but not
// equally, so the bench samples for 1 s before each measured run how busy the CPUs are outside
// its own processes, and records it; figures taken next to a busy machine are flagged.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

export interface MachineInfo {
  cpus: number;
  cpu_model: string;
  memory_gb: number;
  platform: string;
}

export function machineInfo(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
  };
}

function cpuTimes(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/**
 * Share (0..1) of all CPUs busy over the next `ms` in processes other than `ownPids` and this
 * one; null where /proc/stat is unavailable.
 */
export async function busyShare(ms = 1000, ownPids: readonly number[] = []): Promise<number | null> {
  const a = cpuTimes();
  const ownA = processCpuMs(ownPids);
  const selfA = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  if (!a || !b || b.total === a.total) return null;
  const self = process.cpuUsage(selfA);
  const ownMs = processCpuMs(ownPids) - ownA + (self.user + self.system) / 1000;
  // /proc/stat counts in USER_HZ ticks summed over all CPUs, like processCpuMs / CLOCK_TICK_MS
  const busy = b.busy - a.busy - ownMs / CLOCK_TICK_MS;
  return Math.min(1, Math.max(0, busy / (b.total - a.total)));
}

/** Above this share of background CPU use before a run, the run is flagged as disturbed. */
export const BUSY_THRESHOLD = 0.1;

/**
 * Waits (at most `maxSeconds`) until the machine is quiet: background busy share below the
 * threshold for three 1 s samples in a row. Returns the last share seen.
 */
export async function waitForQuiet(maxSeconds: number, log: (line: string) => void): Promise<number | null> {
  const deadline = Date.now() + maxSeconds * 1000;
  let quietInARow = 0;
  let share = await busyShare();
  if (share === null) return null;
  if (share < BUSY_THRESHOLD) quietInARow++;
  if (maxSeconds > 0 && share >= BUSY_THRESHOLD) {
    log(
      `machine busy (${(share * 100).toFixed(0)}% CPU in other processes); waiting up to ${maxSeconds} s for quiet`,
    );
  }
  while (quietInARow < 3 && Date.now() < deadline) {
    share = (await busyShare()) ?? 0;
    quietInARow = share < BUSY_THRESHOLD ? quietInARow + 1 : 0;
  }
  return share;
}

export function loadAverage(): number[] {
  return loadavg().map((v) => Math.round(v * 100) / 100);
}

/** CPU time (user + system) in ms used so far by these processes; missing ones count 0. */
export function processCpuMs(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // fields after the command name "(...)": state is field 3, utime 14, stime 15
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]);
    } catch {
      // gone, or not Linux
    }
  }
  return ticks * CLOCK_TICK_MS;
}
