import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import {
  assertAddressAllowed,
  assertUrlAllowed,
  classifyAddress,
  HostMode,
  HostPolicyError,
  parseIPv6,
  policyFetch,
} from './host-policy';

function refused(url: string, mode: HostMode, pattern?: RegExp): void {
  assert.throws(
    () => assertUrlAllowed(url, mode),
    (err: unknown) => {
      assert.ok(err instanceof HostPolicyError, `${url}: expected HostPolicyError, got ${String(err)}`);
      if (pattern) assert.match(err.message, pattern, url);
      return true;
    },
    `${url} should be refused in ${mode} mode`,
  );
}

function allowed(url: string, mode: HostMode): void {
  assert.doesNotThrow(() => assertUrlAllowed(url, mode), `${url} should be allowed in ${mode} mode`);
}

describe('assertUrlAllowed: schemes and malformed URLs', () => {
  for (const url of [
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'gopher://x/',
    'ws://example.com/',
  ]) {
    test(`refuses ${url}`, () => {
      refused(url, 'any', /only http and https/);
      refused(url, 'public', /only http and https/);
    });
  }
  test('refuses non-URLs', () => {
    refused('not a url', 'any', /not a valid URL/);
    refused('', 'any', /not a valid URL/);
  });
  test('refuses credentials in the URL', () => {
    refused('https://user:pass@api.example.com/v1', 'any', /user name or password/);
  });
});

describe('assertUrlAllowed: link-local and cloud metadata are refused in every mode', () => {
  const always = [
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.1.1/',
    'http://169.254.169.254.', // trailing dot
    'http://2852039166/', // decimal 169.254.169.254
    'http://0xA9FEA9FE/', // hex
    'http://0xa9.0xfe.0xa9.0xfe/', // hex per octet
    'http://0251.0376.0251.0376/', // octal
    'http://169.254.43518/', // shorthand a.b.c
    'http://[::ffff:169.254.169.254]/', // IPv4-mapped, dotted
    'http://[::ffff:a9fe:a9fe]/', // IPv4-mapped, hex
    'http://[0:0:0:0:0:ffff:169.254.169.254]/',
    'http://[::ffff:0:169.254.169.254]/', // IPv4-translated
    'http://[::169.254.169.254]/', // IPv4-compatible
    'http://[64:ff9b::169.254.169.254]/', // NAT64
    'http://[2002:a9fe:a9fe::1]/', // 6to4
    'http://[fe80::1]/',
    'http://[FE80::abcd:1234]:8080/',
    'http://[febf::1]/',
    'http://[fd00:ec2::254]/', // AWS metadata over IPv6
    'http://100.100.100.200/', // Alibaba metadata
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.GOOGLE.INTERNAL./',
    'http://metadata.goog/',
  ];
  for (const url of always) {
    test(`refuses ${url}`, () => {
      refused(url, 'any', /never allowed/);
      refused(url, 'public', /never allowed/);
    });
  }
});

describe('assertUrlAllowed: MODEL_HOSTS=any allows self-hosted servers', () => {
  const ok = [
    'http://localhost:11434/v1',
    'http://127.0.0.1:8080/v1',
    'http://[::1]:1234/v1',
    'http://10.0.0.5/v1',
    'http://192.168.1.20:1234/v1',
    'http://172.20.0.3:8000/v1',
    'http://ollama:11434/v1', // docker-compose service name
    'http://gpu-box.local:8000/v1',
    'http://0.0.0.0:11434/',
    'https://api.openai.com/v1',
    'https://api.anthropic.com',
  ];
  for (const url of ok) test(`allows ${url}`, () => allowed(url, 'any'));
});

describe('assertUrlAllowed: MODEL_HOSTS=public refuses loopback, private and reserved hosts', () => {
  const notPublic = [
    'http://localhost:11434/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://127.0.0.1/',
    'http://127.1/', // shorthand
    'http://127.255.255.254/',
    'http://2130706433/', // decimal 127.0.0.1
    'http://0x7f000001/', // hex
    'http://017700000001/', // octal
    'http://0.0.0.0/',
    'http://0/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://100.64.0.1/', // CGNAT
    'http://100.127.255.255/',
    'http://192.0.2.1/', // documentation
    'http://198.18.0.1/', // benchmarking
    'http://224.0.0.1/', // multicast
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[fc00::1]/',
    'http://[fd12:3456:789a::1]/',
    'http://[fec0::1]/',
    'http://[ff02::1]/',
    'http://[2001:db8::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://ollama:11434/', // bare name
    'http://gpu-box.local/',
    'http://svc.internal/',
    'http://router.home.arpa/',
  ];
  for (const url of notPublic) {
    test(`refuses ${url}`, () => {
      refused(url, 'public', /MODEL_HOSTS=public/);
    });
  }
  const publicOk = [
    'https://api.openai.com/v1',
    'https://api.anthropic.com',
    'http://8.8.8.8/',
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://169.255.0.1/',
    'http://11.0.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'https://llm.example.com:8443/v1',
  ];
  for (const url of publicOk) test(`allows ${url}`, () => allowed(url, 'public'));

  test('messages are readable and name the host', () => {
    refused('http://10.1.2.3/', 'public', /^Model host refused: 10\.1\.2\.3 is a private-network address/);
    refused('http://ollama/', 'public', /ollama is a local network name/);
    refused('http://2852039166/', 'any', /169\.254\.169\.254 is a cloud metadata endpoint, which is never allowed/);
  });
});

describe('address parsing', () => {
  test('parseIPv6 handles compression, embedded IPv4 and zones', () => {
    assert.deepEqual(parseIPv6('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(parseIPv6('::1'), [0, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(parseIPv6('fe80::1%eth0'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    assert.deepEqual(parseIPv6('[::ffff:1.2.3.4]'), [0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    assert.deepEqual(parseIPv6('1:2:3:4:5:6:7.8.9.10'), [1, 2, 3, 4, 5, 6, 0x0708, 0x090a]);
    assert.deepEqual(parseIPv6('2001:db8::'), [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    assert.equal(parseIPv6('1::2::3'), null);
    assert.equal(parseIPv6('1:2:3:4:5:6:7:8:9'), null);
    assert.equal(parseIPv6('12345::'), null);
    assert.equal(parseIPv6('::1.2.3.256'), null);
    assert.equal(parseIPv6('example.com'), null);
  });
  test('classifyAddress', () => {
    assert.equal(classifyAddress('169.254.169.254'), 'metadata');
    assert.equal(classifyAddress('fd00:ec2::254'), 'metadata');
    assert.equal(classifyAddress('fe80::1'), 'link-local');
    assert.equal(classifyAddress('127.0.0.1'), 'loopback');
    assert.equal(classifyAddress('::ffff:127.0.0.1'), 'loopback');
    assert.equal(classifyAddress('10.0.0.1'), 'private');
    assert.equal(classifyAddress('fd00::1'), 'private');
    assert.equal(classifyAddress('0.0.0.0'), 'unspecified');
    assert.equal(classifyAddress('8.8.8.8'), 'public');
    assert.equal(classifyAddress('2606:4700::1'), 'public');
    assert.equal(classifyAddress('example.com'), null);
  });
  test('assertAddressAllowed names the resolved host', () => {
    assert.throws(
      () => assertAddressAllowed('10.0.0.1', 'public', 'llm.example.com'),
      /llm\.example\.com resolves to 10\.0\.0\.1/,
    );
    assert.doesNotThrow(() => assertAddressAllowed('10.0.0.1', 'any', 'llm.example.com'));
    assert.throws(() => assertAddressAllowed('169.254.169.254', 'any', 'x.example.com'), /never allowed/);
  });
});

describe('policyFetch', () => {
  const okFetch = () => {
    const calls: Array<{ url: string; init?: RequestInit }> = [];
    const f = (async (input: string | URL | Request, init?: RequestInit) => {
      calls.push({ url: String(input), init });
      return new Response('ok');
    }) as typeof fetch;
    return { f, calls };
  };
  const resolveTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  test('refuses a name that resolves to the metadata address, in any mode, without connecting', async () => {
    const { f, calls } = okFetch();
    const pf = policyFetch('any', { fetch: f, lookup: resolveTo('169.254.169.254') });
    await assert.rejects(pf('http://rebind.example.com/v1/chat/completions'), (err: unknown) => {
      assert.ok(err instanceof HostPolicyError);
      assert.match(err.message, /rebind\.example\.com resolves to 169\.254\.169\.254/);
      return true;
    });
    assert.equal(calls.length, 0);
  });

  test('public mode: refuses when any resolved address is private', async () => {
    const { f, calls } = okFetch();
    const lookup = resolveTo('93.184.216.34', '10.0.0.1');
    await assert.rejects(policyFetch('public', { fetch: f, lookup })('https://mixed.example.com/'), HostPolicyError);
    assert.equal(calls.length, 0);
    const res = await policyFetch('any', { fetch: f, lookup })('https://mixed.example.com/');
    assert.equal(res.status, 200);
  });

  test('public mode: refuses an IPv4-mapped loopback answer', async () => {
    const { f } = okFetch();
    await assert.rejects(
      policyFetch('public', { fetch: f, lookup: resolveTo('::ffff:127.0.0.1') })('https://sneaky.example.com/'),
      /loopback/,
    );
  });

  test('an empty DNS answer is refused; a DNS failure is an error', async () => {
    const { f } = okFetch();
    await assert.rejects(
      policyFetch('any', { fetch: f, lookup: resolveTo() })('https://none.example.com/'),
      HostPolicyError,
    );
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nx.example.com'), { code: 'ENOTFOUND' });
    };
    await assert.rejects(
      policyFetch('any', { fetch: f, lookup: failing })('https://nx.example.com/'),
      /could not resolve nx\.example\.com \(ENOTFOUND\)/,
    );
  });

  test('IP literals are not looked up; the URL check still applies', async () => {
    const { f, calls } = okFetch();
    const lookup = async () => {
      throw new Error('lookup must not be called');
    };
    await policyFetch('public', { fetch: f, lookup })('http://8.8.8.8/x');
    await assert.rejects(policyFetch('public', { fetch: f, lookup })('http://127.0.0.1/x'), HostPolicyError);
    await assert.rejects(policyFetch('any', { fetch: f, lookup })('http://[::ffff:169.254.169.254]/'), HostPolicyError);
    await assert.rejects(policyFetch('any', { fetch: f, lookup })('file:///etc/passwd'), HostPolicyError);
    assert.equal(calls.length, 1);
  });

  test('asks the transport not to follow redirects', async () => {
    const { f, calls } = okFetch();
    await policyFetch('any', { fetch: f, lookup: resolveTo('93.184.216.34') })('https://llm.example.com/', {
      method: 'POST',
      redirect: 'follow',
    });
    assert.equal(calls[0].init?.redirect, 'manual');
    assert.equal(calls[0].init?.method, 'POST');
  });

  test('a real redirect is returned as a 3xx, not followed', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/start') {
        res.writeHead(302, { location: '/target' });
        res.end();
      } else {
        res.end('followed');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await policyFetch('any')(`http://127.0.0.1:${port}/start`);
      assert.equal(res.status, 302);
      await res.body?.cancel();
      assert.deepEqual(seen, ['/start']);
      // and the same server is refused outright in public mode
      await assert.rejects(policyFetch('public')(`http://127.0.0.1:${port}/start`), HostPolicyError);
      await assert.rejects(policyFetch('public')(`http://localhost:${port}/start`), HostPolicyError);
      assert.deepEqual(seen, ['/start']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
