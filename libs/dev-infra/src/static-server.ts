import { readFile } from 'node:fs/promises';
import { createServer, Server } from 'node:http';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface StaticSite {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * A built single-page app (the console) served from `dir` on `host:port` for development and
 * tests: `/` is index.html, hashed assets are cached, and `config` answers GET /config.json so the
 * same build learns where its API and issuer are. Nothing outside `dir` is reachable.
 */
export async function serveStaticSite(options: { dir: string; port: number; host?: string; config: unknown }): Promise<StaticSite> {
  const root = path.resolve(options.dir);
  const config = JSON.stringify(options.config);
  const server = createServer((req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (pathname === '/config.json') {
      res.writeHead(200, { 'content-type': TYPES['.json'], 'cache-control': 'no-store' }).end(config);
      return;
    }
    const file = path.resolve(root, `.${pathname === '/' ? '/index.html' : pathname}`);
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const immutable = pathname.startsWith('/assets/');
        res
          .writeHead(200, {
            'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
            'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
            'x-content-type-options': 'nosniff',
          })
          .end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'),
    );
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, resolve);
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Browsers keep idle connections open; they must not hold the stop up.
        server.closeAllConnections();
      }),
  };
}
