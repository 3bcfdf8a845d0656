import { createServer, Server } from 'node:http';
import { freePort } from './free-port';
import { Gateway, serveGateway } from './gateway';

/** A service that answers with what it received, so the test sees exactly what the gateway forwarded. */
async function echoService(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(201, { 'content-type': 'application/json', 'x-service': name });
      res.end(JSON.stringify({ name, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port };
}

describe('the development gateway', () => {
  let control: { server: Server; port: number };
  let ledger: { server: Server; port: number };
  let gateway: Gateway;

  beforeAll(async () => {
    control = await echoService('control');
    ledger = await echoService('ledger');
    gateway = await serveGateway({
      port: 0,
      host: '127.0.0.1',
      routes: [
        { path: '/control', port: control.port },
        { path: '/ledger', port: ledger.port },
        { path: '/.well-known/jwks.json', port: control.port, exact: true },
        { path: '/.well-known/oauth-authorization-server', port: ledger.port },
      ],
    });
  });
  afterAll(async () => {
    await gateway.close();
    control.server.close();
    ledger.server.close();
  });

  const base = () => gateway.url.replace('localhost', '127.0.0.1');

  it('passes method, path, query, body and headers through unchanged, and the answer back', async () => {
    const body = JSON.stringify({ amount: 1250, currency: 'USD' });
    const res = await fetch(`${base()}/ledger/v1/transactions?limit=2&metadata[k]=v`, {
      method: 'POST',
      headers: { authorization: 'Bearer abc.def', 'idempotency-key': 'key-1', 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.9' },
      body,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-service')).toBe('ledger');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const seen = (await res.json()) as { headers: Record<string, string> };
    expect(seen).toMatchObject({ name: 'ledger', method: 'POST', url: '/ledger/v1/transactions?limit=2&metadata[k]=v', body });
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer abc.def',
      'idempotency-key': 'key-1',
      'content-type': 'application/json',
      host: new URL(base()).host,
      'x-forwarded-host': new URL(base()).host,
      'x-forwarded-proto': 'http',
      'x-forwarded-for': '10.0.0.9, 127.0.0.1',
    });
  });

  it('routes by whole path segments and the longest prefix', async () => {
    const service = async (path: string) => (await fetch(`${base()}${path}`)).headers.get('x-service');
    expect(await service('/control/v1/workspaces')).toBe('control');
    expect(await service('/control')).toBe('control');
    expect(await service('/.well-known/jwks.json')).toBe('control');
    expect(await service('/.well-known/oauth-authorization-server/ledger')).toBe('ledger');
    for (const unrouted of ['/ledgers', '/controls/x', '/.well-known/jwks.json/x', '/', '/metrics']) {
      const res = await fetch(`${base()}${unrouted}`);
      expect([unrouted, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([unrouted, 404, 'not_found']);
    }
  });

  it('answers 502 when the service behind a route is down', async () => {
    const downPort = await freePort();
    const lonely = await serveGateway({ port: 0, host: '127.0.0.1', routes: [{ path: '/ledger', port: downPort }] });
    try {
      const res = await fetch(`${lonely.url.replace('localhost', '127.0.0.1')}/ledger/v1/accounts`);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
    } finally {
      await lonely.close();
    }
  });
});
