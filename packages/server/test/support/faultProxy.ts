import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Forwards to `target`; counts requests by "METHOD path"; drops the answers of requests `drop` picks (after the
 * target acted), closes the connection of requests `refuse` picks (the target never sees them), and holds requests
 * `hold` gives a delay that long before forwarding and their answers that long again (so that a kill lands while
 * one is in flight, or after the target acted and before the caller heard).
 */
export class FaultProxy {
  readonly seen: string[] = [];
  drop: (method: string, path: string) => boolean = () => false;
  refuse: (method: string, path: string) => boolean = () => false;
  hold: (method: string, path: string) => number = () => 0;
  target = '';
  url = '';
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createHttpServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] as string;
      this.seen.push(`${req.method} ${path}`);
      if (this.refuse(req.method ?? 'GET', path)) {
        req.socket.destroy();
        return;
      }
      const dropIt = this.drop(req.method ?? 'GET', path);
      const holdMs = this.hold(req.method ?? 'GET', path);
      const forward = () => {
        const onward = httpRequest(new URL(req.url ?? '/', this.target), { method: req.method, headers: req.headers });
        onward.on('response', (answer) => {
          if (dropIt) {
            // The target has acted; its answer never reaches the caller.
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          const answerIt = () => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          };
          if (holdMs > 0) setTimeout(answerIt, holdMs);
          else answerIt();
        });
        onward.on('error', () => req.socket.destroy());
        req.pipe(onward);
      };
      if (holdMs > 0) setTimeout(forward, holdMs);
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
