// A reader of server-sent event streams for the event stream's tests: each message parsed as it
// comes, waited for with a deadline, and the end of the response.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';

export interface Message {
  event: string;
  id?: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** An open stream: its messages as they come, parsed by a reader as small as the format. */
export class Sse {
  private buffer = '';
  private readonly messages: Message[] = [];
  private waiter: (() => void) | null = null;
  readonly ended: Promise<void>;
  private readonly body: Readable;

  constructor(response: Response) {
    const body = Readable.fromWeb(response.body! as Parameters<typeof Readable.fromWeb>[0]);
    this.body = body;
    body.setEncoding('utf8');
    body.on('error', () => {}); // closed by the test
    body.on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\n\n')) >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (!fields.has('data')) continue;
        this.messages.push({
          event: fields.get('event') ?? 'message',
          id: fields.get('id'),
          data: JSON.parse(fields.get('data')!),
        });
        this.waiter?.();
      }
    });
    this.ended = new Promise((resolve) => body.on('close', resolve));
  }

  /** The next message, or a failure after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) assert.fail('no message on the stream in time');
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
        setTimeout(resolve, left);
      });
    }
    return this.messages.shift()!;
  }

  /** Messages that came so far, taken. */
  drain(): Message[] {
    return this.messages.splice(0);
  }

  close(): void {
    this.body.destroy();
  }
}
