/**
 * A TCP proxy between the app and its Postgres server, so a test can make the database fail the way
 * a network or a server does: `cut()` destroys every connection and refuses new ones (a blip or a
 * stopped server), `freeze()` accepts connections and never answers (a frozen server), `restore()`
 * lets traffic through again. The app is pointed at `url` (the target URL with the proxy's port).
 */
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';

type Mode = 'up' | 'down' | 'frozen';

export class DbProxy {
  url = '';
  private mode: Mode = 'up';
  private readonly sockets = new Set<Socket>();
  /** connections accepted so far (all modes) */
  accepted = 0;

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(databaseUrl: string): Promise<DbProxy> {
    const u = new URL(databaseUrl);
    const target = { host: u.hostname, port: Number(u.port || 5432) };
    const server = createServer();
    const proxy = new DbProxy(server, target);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    u.hostname = '127.0.0.1';
    u.port = String((server.address() as AddressInfo).port);
    proxy.url = u.toString();
    return proxy;
  }

  private track(s: Socket) {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
    s.on('error', () => s.destroy());
  }

  private accept(client: Socket) {
    this.accepted++;
    this.track(client);
    if (this.mode === 'down') {
      client.resetAndDestroy();
      return;
    }
    if (this.mode === 'frozen') return; // held open, never answered
    const upstream = new Socket();
    this.track(upstream);
    upstream.connect(this.target.port, this.target.host);
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (d) => {
        if (this.mode === 'up') to.write(d);
      });
      from.on('close', () => to.destroy());
    };
    forward(client, upstream);
    forward(upstream, client);
  }

  /** Destroys every connection and refuses new ones until restore(). */
  cut() {
    this.mode = 'down';
    for (const s of this.sockets) s.destroy();
  }

  /** Keeps connections open but answers nothing (new ones too) until restore(). */
  freeze() {
    this.mode = 'frozen';
  }

  /** Traffic flows again; connections held by a freeze are dropped (their protocol state is lost). */
  restore() {
    const wasFrozen = this.mode === 'frozen';
    this.mode = 'up';
    if (wasFrozen) for (const s of this.sockets) s.destroy();
  }

  async close() {
    this.mode = 'down';
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
