// A PGlite directory is opened by one process at a time, and PGlite has no lock of its own on it:
// a lock file holding the owner's pid and what it is. The service holds it while it runs; the
// CLI's db commands take turns through it and never touch a directory the service has open.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type DataDirHolder = 'service' | 'cli';

export const DATA_DIR_LOCK_FILE = 'ticketing.lock';

/** The directory is held by another live process. */
export class DataDirBusy extends Error {
  readonly dataDir: string;
  readonly pid: number;
  readonly holder: DataDirHolder;
  constructor(dataDir: string, pid: number, holder: DataDirHolder) {
    super(
      holder === 'service'
        ? `${dataDir} is open in the service (process ${pid}): stop it first; one process opens a PGlite directory`
        : `${dataDir} is held by a db command (process ${pid}); is it stuck?`,
    );
    this.name = 'DataDirBusy';
    this.dataDir = dataDir;
    this.pid = pid;
    this.holder = holder;
  }
}

/** Whether a process with this id is running (one we may not signal counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock's owner; pid 0 while its owner is still writing it; null once it is gone. */
function ownerOf(path: string): { pid: number; holder: DataDirHolder } | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const [pid, holder] = text.trim().split(' ');
  return { pid: Number(pid) || 0, holder: holder === 'service' ? 'service' : 'cli' };
}

/**
 * Takes the directory's lock and resolves to its release. A lock left by a dead process, or by
 * this pid (a container restarted with the same pid), is taken over. A live service's lock fails
 * at once; another db command's is waited for up to `waitMs`.
 */
export async function lockDataDir(
  dataDir: string,
  holder: DataDirHolder,
  waitMs: number,
): Promise<() => void> {
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, `${process.pid} ${holder}`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(path);
    if (owner === null) continue; // released between the two calls
    const stale = owner.pid > 0 && (owner.pid === process.pid || !isAlive(owner.pid));
    if (stale) rmSync(path, { force: true });
    else if (owner.pid > 0 && owner.holder === 'service')
      throw new DataDirBusy(dataDir, owner.pid, 'service');
    else if (Date.now() > deadline) throw new DataDirBusy(dataDir, owner.pid, owner.holder);
    else await new Promise((r) => setTimeout(r, 100));
  }
}
