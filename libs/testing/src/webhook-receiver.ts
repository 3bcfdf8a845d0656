import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** Decides the status answered to the n-th request (1-based); may delay to provoke timeouts. */
export type WebhookResponder = (request: ReceivedWebhook, n: number) => number | Promise<number>;

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  respondWith(responder: WebhookResponder): void;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/** A local HTTP endpoint that records every webhook it receives (200 unless told otherwise). */
export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let responder: WebhookResponder = () => 200;
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(request);
      waiters.forEach((wake) => wake());
      const status = await responder(request, received.length);
      if (!res.destroyed) res.writeHead(status, { 'Content-Type': 'text/plain' }).end(`status ${status}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respondWith: (next) => {
      responder = next;
    },
    waitFor: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (received.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(received.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`expected ${count} webhooks within ${timeoutMs} ms, got ${received.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
