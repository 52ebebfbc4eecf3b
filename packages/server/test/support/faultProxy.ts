import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Forwards to `target`; counts requests by "METHOD path"; drops the answers of requests `drop` picks (after the
 * target acted), and closes the connection of requests `refuse` picks (the target never sees them).
 */
export class FaultProxy {
  readonly seen: string[] = [];
  drop: (method: string, path: string) => boolean = () => false;
  refuse: (method: string, path: string) => boolean = () => false;
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
      const onward = httpRequest(new URL(req.url ?? '/', this.target), { method: req.method, headers: req.headers });
      onward.on('response', (answer) => {
        if (dropIt) {
          // The target has acted; its answer never reaches the caller.
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      onward.on('error', () => req.socket.destroy());
      req.pipe(onward);
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
