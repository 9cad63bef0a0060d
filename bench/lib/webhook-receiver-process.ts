// Starts and drives bench/webhook-receiver.ts (the local receiver of the webhook-backlog scenario)
// as a child process over IPC.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './paths.ts';
import { stopChild } from './processes.ts';

const RECEIVER = join(ROOT, 'bench', 'webhook-receiver.ts');

export interface ReceiverStats {
  /** POSTs answered, duplicates included */
  requests: number;
  /** distinct webhook-ids */
  unique: number;
  duplicates: number;
  verified: number;
  verifyFailures: number;
  failureExample: string | null;
  /** bodies that were not order.paid events */
  otherTypes: number;
  /** epoch ms of the first and last distinct delivery */
  first: number | null;
  last: number | null;
  /** distinct deliveries that arrived inside the window asked for */
  inWindow: number;
}

export interface RunningReceiver {
  /** http://127.0.0.1:<port>/hooks */
  url: string;
  pid: number;
  reset(): Promise<void>;
  stats(window?: { from: number; to: number }): Promise<ReceiverStats>;
  stop(): Promise<void>;
}

/** One reply of the given type to the next command (commands are sent one at a time). */
function reply<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolveReply, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the webhook receiver sent no ${type} within 10 s`)),
      10_000,
    );
    const onMessage = (message: { type?: string }) => {
      if (message.type !== type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolveReply(message as T);
    };
    child.on('message', onMessage);
  });
}

/** Forks the receiver with the endpoint's signing secret; verifies the first and every n-th. */
export async function startWebhookReceiver(secret: string, verifyEvery: number): Promise<RunningReceiver> {
  const child = fork(RECEIVER, [], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code})`))),
  );
  exited.catch(() => {});
  const port = reply<{ port: number }>(child, 'port');
  child.send({ secret, verifyEvery });
  const { port: listening } = await Promise.race([port, exited]);
  let queue: Promise<unknown> = Promise.resolve();
  // one command in flight at a time, so that each reply answers its own command
  const command = <T>(message: object, type: string): Promise<T> => {
    const next = queue.then(() => {
      const answer = reply<T>(child, type);
      child.send(message);
      return answer;
    });
    queue = next.catch(() => {});
    return next;
  };
  return {
    url: `http://127.0.0.1:${listening}/hooks`,
    pid: child.pid!,
    reset: async () => {
      await command({ type: 'reset' }, 'reset');
    },
    stats: (window) => command<ReceiverStats>({ type: 'stats', ...window }, 'stats'),
    stop: () => stopChild(child, 5000),
  };
}
