import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  receivedAt: number;
}

/**
 * A real HTTP receiver for webhook tests. `respond` decides each answer: a status code, 'hang' (never
 * answer) or 'close' (drop the connection).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (hook: ReceivedWebhook, index: number) => number | 'hang' | 'close' = () => 200;
  private server: Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const hook = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          path: req.url ?? '/',
          receivedAt: Date.now(),
        };
        this.received.push(hook);
        const answer = this.respond(hook, this.received.length - 1);
        if (answer === 'hang') return;
        if (answer === 'close') {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Received webhooks whose path is `path`. */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((h) => h.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Polls `check` until it returns a truthy value or the time is up. */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
