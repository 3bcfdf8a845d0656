import { Agent, createServer, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, request, Server, ServerResponse } from 'node:http';

/** One path prefix and the local port it goes to; `exact` matches the path itself only, not what lies under it. */
export interface GatewayRoute {
  path: string;
  port: number;
  exact?: boolean;
}

export interface Gateway {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1): never forwarded. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade'];

function withoutHopByHop(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = String(headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase());
  const out: OutgoingHttpHeaders = { ...headers };
  for (const name of [...HOP_BY_HOP, ...listed]) delete out[name];
  return out;
}

function answer(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code, message } }));
}

/** The route of `pathname`: the longest matching prefix, on segment boundaries (`/ledger` never takes `/ledgers`). */
function routeOf(routes: GatewayRoute[], pathname: string): GatewayRoute | undefined {
  return routes
    .filter((r) => pathname === r.path || (!r.exact && pathname.startsWith(`${r.path.replace(/\/$/, '')}/`)))
    .sort((a, b) => b.path.length - a.path.length)[0];
}

/**
 * One origin in front of services on loopback ports, as the compose stack's nginx gateway is: each
 * request goes by path prefix to its service with method, path, query, body and headers unchanged
 * (Authorization and Idempotency-Key included), the caller's Host kept and X-Forwarded-* added, and
 * the answer streams back as it came. A path no route claims answers 404; a service that is down, 502.
 */
export async function serveGateway(options: { port: number; routes: GatewayRoute[]; host?: string }): Promise<Gateway> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const pathname = new URL(req.url ?? '/', 'http://gateway').pathname;
    const route = routeOf(options.routes, pathname);
    if (!route) return answer(res, 404, 'not_found', `No route for ${pathname} on this gateway`);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const headers = {
      ...withoutHopByHop(req.headers),
      'x-forwarded-for': forwardedFor,
      'x-forwarded-proto': req.headers['x-forwarded-proto'] ?? 'http',
      'x-forwarded-host': req.headers['x-forwarded-host'] ?? req.headers.host ?? '',
      'x-forwarded-port': req.headers['x-forwarded-port'] ?? String(req.socket.localPort ?? ''),
    };
    const upstream = request({ host: '127.0.0.1', port: route.port, method: req.method, path: req.url, headers, agent }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.statusMessage, withoutHopByHop(reply.headers));
      reply.pipe(res);
    });
    upstream.on('error', () => answer(res, 502, 'bad_gateway', `The service behind ${route.path} does not answer`));
    // A caller that goes away mid-request takes the upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
