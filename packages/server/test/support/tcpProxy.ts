import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface ProxyTarget {
  host: string;
  port: number;
}

interface Pipe {
  client: Socket;
  upstream: Socket;
  /** Bytes from the server kept back while the proxy holds (see hold()). */
  held: Buffer[];
  /** The server closed its side while held: the client's side is closed after the held bytes. */
  upstreamEnded: boolean;
}

/**
 * A TCP proxy of the test's own, standing in for what redirects clients to the current primary in production
 * (HAProxy, a virtual address, DNS): `retarget` moves it, and with no target it accepts and at once closes every
 * connection, as HAProxy does while no server is up. `hold`/`flush` make the race of a dying backend
 * deterministic: bytes from the server are kept back, then written to the client in one piece, so that the client
 * parses a query's last answer and the backend's FATAL error in one go.
 */
export class TcpProxy {
  private readonly pipes = new Set<Pipe>();
  private holding = false;

  private constructor(
    private readonly server: Server,
    private target: ProxyTarget | null,
  ) {}

  static async start(target: ProxyTarget | null): Promise<TcpProxy> {
    let proxy: TcpProxy | null = null;
    const server = createServer((client) => proxy?.accept(client));
    proxy = new TcpProxy(server, target);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections through the proxy that are open now. */
  get open(): number {
    return this.pipes.size;
  }

  private accept(client: Socket) {
    client.setNoDelay(true);
    const target = this.target;
    if (!target) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    upstream.setNoDelay(true);
    const pipe: Pipe = { client, upstream, held: [], upstreamEnded: false };
    this.pipes.add(pipe);
    const drop = () => {
      this.pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (this.holding) pipe.held.push(chunk);
      else client.write(chunk);
    });
    upstream.on('end', () => {
      if (this.holding) pipe.upstreamEnded = true;
      else client.end();
    });
    upstream.on('close', () => {
      if (!this.holding) drop();
    });
    upstream.on('error', () => undefined);
    client.on('error', drop);
    client.on('close', drop);
  }

  /** Where new connections go from now on (null: refused); open connections are cut when `cut` is set. */
  retarget(target: ProxyTarget | null, cut = false): void {
    this.target = target;
    if (cut) this.cutAll();
  }

  /** Drops every open connection at once, both ways (the machine behind the proxy is gone). */
  cutAll(): void {
    for (const pipe of [...this.pipes]) {
      this.pipes.delete(pipe);
      pipe.client.destroy();
      pipe.upstream.destroy();
    }
  }

  /** Keeps back every byte the servers send from now on, until flush(). */
  hold(): void {
    this.holding = true;
  }

  /** Every byte kept back so far, per connection. */
  held(): Buffer[] {
    return [...this.pipes].map((p) => Buffer.concat(p.held));
  }

  /** True once every server that closed its side while held has closed it (nothing more will come). */
  heldEnded(): boolean[] {
    return [...this.pipes].map((p) => p.upstreamEnded);
  }

  /** Writes what was kept back to each client in one write (and then closes it if its server had), and forwards again. */
  flush(): void {
    this.holding = false;
    for (const pipe of [...this.pipes]) {
      if (pipe.held.length) pipe.client.write(Buffer.concat(pipe.held));
      pipe.held = [];
      if (pipe.upstreamEnded) {
        this.pipes.delete(pipe);
        pipe.client.end();
        pipe.upstream.destroy();
      }
    }
  }

  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
