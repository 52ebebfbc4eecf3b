import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How long a held request waits before it is forwarded, and its answer before it is passed back (ms). */
export interface Hold {
  request: number;
  answer: number;
}

/**
 * Forwards to `target`; counts requests by "METHOD path"; drops the answers of requests `drop` picks (after the
 * target acted), closes the connection of requests `refuse` picks (the target never sees them), and holds the
 * requests `hold` picks and their answers (so that a caller killed meanwhile dies before the target saw the request,
 * or after it acted and before the caller heard).
 */
export class FaultProxy {
  readonly seen: string[] = [];
  drop: (method: string, path: string) => boolean = () => false;
  refuse: (method: string, path: string) => boolean = () => false;
  hold: (method: string, path: string) => Hold | null = () => null;
  target = '';
  url = '';
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createHttpServer((req, res) => {
      const method = req.method ?? 'GET';
      const path = (req.url ?? '/').split('?')[0] as string;
      this.seen.push(`${method} ${path}`);
      if (this.refuse(method, path)) {
        req.socket.destroy();
        return;
      }
      const dropIt = this.drop(method, path);
      const held = this.hold(method, path);
      const forward = () => {
        // A caller that died before sending its whole body: the target must not wait for the rest (its close would).
        if (req.destroyed && !req.complete) return;
        const onward = httpRequest(new URL(req.url ?? '/', this.target), { method, headers: req.headers });
        req.on('close', () => {
          if (!req.complete) onward.destroy();
        });
        onward.on('response', (answer) => {
          if (dropIt) {
            // The target has acted; its answer never reaches the caller.
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          const passBack = () => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          };
          if (held) setTimeout(passBack, held.answer);
          else passBack();
        });
        onward.on('error', () => req.socket.destroy());
        req.pipe(onward);
      };
      if (held) setTimeout(forward, held.request);
      else forward();
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server?.address() as AddressInfo).port}`;
    return this;
  }

  count(what: string): number {
    return this.seen.filter((s) => s === what).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
