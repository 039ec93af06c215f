/**
 * The MODEL_HOSTS policy: which hosts the server may call on a user's behalf (a model's `api_base`).
 *
 * - `assertUrlAllowed(url, mode)` is the syntactic check used when a model record is saved and before
 *   every call: http(s) only; link-local and cloud-metadata addresses are always refused; in `public`
 *   mode loopback, private, shared (CGNAT) and reserved addresses and local-only names are refused too.
 *   IP literals are judged after WHATWG URL normalisation, so `http://2852039166/`, `http://0xa9.254.0251.254/`
 *   and `http://[::ffff:169.254.169.254]/` are all seen as 169.254.169.254; IPv6 forms that embed an
 *   IPv4 address (mapped, translated, compatible, NAT64, 6to4) are judged by that IPv4 address.
 * - `policyFetch(mode)` is the `fetch` handed to the LLM SDKs: it re-checks the URL, resolves the host
 *   name at call time (`dns.lookup`, all addresses) and refuses when any address is refused, and never
 *   follows redirects (`redirect: 'manual'`; the SDK then reports the 3xx as an HTTP error).
 *
 * Residual risk, by design of fetch: the connection resolves the name again, so a DNS answer that
 * changes between our lookup and the connect (rebinding with TTL 0) is not caught here.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export type HostMode = 'any' | 'public';

/** Why an address or name is refused; `public` means it is fine. */
export type AddressClass = 'metadata' | 'link-local' | 'loopback' | 'unspecified' | 'private' | 'reserved' | 'public';

export class HostPolicyError extends Error {
  readonly code = 'host_policy';
  constructor(
    message: string,
    readonly reason: AddressClass | 'scheme' | 'invalid_url' | 'credentials' | 'unresolvable',
    readonly host?: string,
  ) {
    super(message);
    this.name = 'HostPolicyError';
  }
}

const ALWAYS_REFUSED: ReadonlySet<AddressClass> = new Set(['metadata', 'link-local']);

const DESCRIPTION: Record<Exclude<AddressClass, 'public'>, string> = {
  metadata: 'a cloud metadata endpoint',
  'link-local': 'a link-local address',
  loopback: 'a loopback address (this machine)',
  unspecified: 'an unspecified address (this machine)',
  private: 'a private-network address',
  reserved: 'a reserved or non-routable address',
};

// ---------------------------------------------------------------------------------------------
// Address parsing and classification

/** Dotted-quad IPv4 → 32-bit unsigned integer, or null. Only canonical decimal form (what URL and dns return). */
export function parseIPv4(s: string): number | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n >>> 0;
}

/** IPv6 text → eight 16-bit groups, or null. Accepts `::`, an embedded dotted quad and a `%zone`. */
export function parseIPv6(input: string): number[] | null {
  let s = input.trim().toLowerCase();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return null;

  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const v4 = parseIPv4(last);
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    s = s.slice(0, lastColon + 1) + '0'; // placeholder group, dropped below
  }

  const halves = s.split('::');
  if (halves.length > 2) return null;
  const toGroups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = toGroups(halves[0]);
  const rest = halves.length === 2 ? toGroups(halves[1]) : [];
  if (tail.length) {
    // drop the placeholder '0' we appended in place of the dotted quad
    if (halves.length === 2 && rest.length) rest.pop();
    else head.pop();
  }
  const parse = (g: string) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN);
  const a = head.map(parse);
  const b = rest.map(parse);
  if ([...a, ...b].some(Number.isNaN)) return null;
  const explicit = a.length + b.length + tail.length;
  if (halves.length === 2) {
    if (explicit > 7) return null;
    return [...a, ...new Array<number>(8 - explicit).fill(0), ...b, ...tail];
  }
  return explicit === 8 ? [...a, ...tail] : null;
}

function inV4(n: number, base: string, bits: number): boolean {
  const b = parseIPv4(base)!;
  if (bits === 0) return true;
  const mask = (0xffffffff << (32 - bits)) >>> 0;
  return (n & mask) >>> 0 === (b & mask) >>> 0;
}

function classifyV4(n: number): AddressClass {
  if (n === parseIPv4('169.254.169.254') || n === parseIPv4('100.100.100.200')) return 'metadata';
  if (inV4(n, '169.254.0.0', 16)) return 'link-local';
  if (inV4(n, '127.0.0.0', 8)) return 'loopback';
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16) || inV4(n, '100.64.0.0', 10)) {
    return 'private';
  }
  if (
    inV4(n, '192.0.0.0', 24) ||
    inV4(n, '192.0.2.0', 24) ||
    inV4(n, '198.18.0.0', 15) ||
    inV4(n, '198.51.100.0', 24) ||
    inV4(n, '203.0.113.0', 24) ||
    inV4(n, '224.0.0.0', 4) || // multicast
    inV4(n, '240.0.0.0', 4) // reserved, broadcast
  ) {
    return 'reserved';
  }
  return 'public';
}

function classifyV6(g: number[]): AddressClass {
  const zeroUpTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  const v4At = (hi: number, lo: number) => ((g[hi] << 16) | g[lo]) >>> 0;

  // fd00:ec2::254 — the AWS metadata endpoint over IPv6
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return 'metadata';
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // Forms that embed an IPv4 address: judge the IPv4 address.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(v4At(6, 7)); // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyV4(v4At(6, 7)); // ::ffff:0:a.b.c.d (translated)
  if (zeroUpTo(6)) return classifyV4(v4At(6, 7)); // ::a.b.c.d (deprecated compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b && (g.slice(2, 6).every((x) => x === 0) || g[2] === 1)) {
    return classifyV4(v4At(6, 7)); // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64)
  }
  if (g[0] === 0x2002) return classifyV4(v4At(1, 2)); // 6to4
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'reserved'; // discard-only
  return 'public';
}

/** Classifies an IP address literal (v4 dotted quad or v6, brackets allowed); null if it is not one. */
export function classifyAddress(address: string): AddressClass | null {
  const v4 = parseIPv4(address);
  if (v4 !== null) return classifyV4(v4);
  const v6 = parseIPv6(address);
  if (v6 !== null) return classifyV6(v6);
  return null;
}

const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Classifies a host: an IP literal by address; a name by the few names we can judge without DNS. */
export function classifyHost(host: string): AddressClass {
  const h = normaliseHost(host);
  const ip = classifyAddress(h);
  if (ip) return ip;
  if (METADATA_NAMES.has(h)) return 'metadata';
  if (h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain') return 'loopback';
  // Names that by definition resolve only inside a site (mDNS, RFC 8375, common private zones).
  if (!h.includes('.') || /\.(local|internal|home\.arpa|localdomain|lan)$/.test(h)) return 'private';
  return 'public';
}

function normaliseHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.replace(/\.+$/, '');
}

function refusalMessage(host: string, cls: AddressClass, mode: HostMode, resolvedFrom?: string): string | null {
  if (cls === 'public') return null;
  const alwaysRefused = ALWAYS_REFUSED.has(cls);
  // In `any` mode a bare or site-local name is fine (Ollama on `ollama:11434`, `gpu-box.lan`).
  if (!alwaysRefused && mode === 'any') return null;
  const what = resolvedFrom ? `${resolvedFrom} resolves to ${host}, which is` : `${host} is`;
  const description = cls === 'private' && classifyAddress(host) === null ? 'a local network name' : DESCRIPTION[cls];
  return alwaysRefused
    ? `Model host refused: ${what} ${description}, which is never allowed.`
    : `Model host refused: ${what} ${description}; this server only calls public model hosts (MODEL_HOSTS=public).`;
}

// ---------------------------------------------------------------------------------------------
// Public API

/** Parses and checks a URL against the policy; returns the parsed URL. Throws HostPolicyError. */
export function checkUrl(url: string, mode: HostMode): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HostPolicyError(`Model host refused: "${truncate(url)}" is not a valid URL.`, 'invalid_url');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new HostPolicyError(
      `Model host refused: only http and https URLs are allowed, not "${parsed.protocol.replace(/:$/, '')}".`,
      'scheme',
    );
  }
  if (parsed.username || parsed.password) {
    throw new HostPolicyError(
      'Model host refused: the URL must not contain a user name or password; put the key in the API key field.',
      'credentials',
    );
  }
  const host = normaliseHost(parsed.hostname);
  const message = refusalMessage(host, classifyHost(host), mode);
  if (message) throw new HostPolicyError(message, classifyHost(host), host);
  return parsed;
}

/** Syntactic check of a model URL (no DNS). Throws HostPolicyError with a user-readable message. */
export function assertUrlAllowed(url: string, mode: HostMode): void {
  checkUrl(url, mode);
}

/** Checks one resolved address of `host`. Throws HostPolicyError. */
export function assertAddressAllowed(address: string, mode: HostMode, host?: string): void {
  const cls = classifyAddress(address);
  if (cls === null) {
    throw new HostPolicyError(
      `Model host refused: ${host ?? address} did not resolve to an IP address.`,
      'unresolvable',
      host,
    );
  }
  const message = refusalMessage(address, cls, mode, host);
  if (message) throw new HostPolicyError(message, cls, host ?? address);
}

export type LookupAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const defaultLookup: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * A `fetch` for the LLM SDKs that applies the policy at call time: URL check, DNS check of every
 * address the name resolves to, and no redirects. `opts.fetch`/`opts.lookup` are for tests.
 */
export function policyFetch(mode: HostMode, opts: { fetch?: typeof fetch; lookup?: LookupAll } = {}): typeof fetch {
  const lookup = opts.lookup ?? defaultLookup;
  const policed = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const base = opts.fetch ?? globalThis.fetch;
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const url = checkUrl(href, mode);
    const host = normaliseHost(url.hostname);
    if (isIP(host) === 0) {
      let addresses: Array<{ address: string }>;
      try {
        addresses = await lookup(host);
      } catch (err) {
        const code = (err as { code?: string }).code ?? (err as Error).message;
        throw new Error(`could not resolve ${host} (${code})`, { cause: err });
      }
      if (addresses.length === 0) {
        throw new HostPolicyError(`Model host refused: ${host} did not resolve to any address.`, 'unresolvable', host);
      }
      for (const a of addresses) assertAddressAllowed(a.address, mode, host);
    }
    return base(input, { ...init, redirect: 'manual' });
  };
  return policed;
}

function truncate(s: string, n = 200): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}
