import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSubscription {
  id: string;
  customer: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_start: number;
  current_period_end: number;
  metadata: Record<string, string>;
  items: { data: { id: string; price: { id: string } }[] };
}

export interface RecordedCall {
  method: string;
  path: string;
  form: Record<string, string>;
  authorization: string | undefined;
}

/** How the fake answers: normally, by dropping the connection, or never (to trip the client's timeout). */
export type FakeMode = 'up' | 'down' | 'hang';

export interface FakeBillingProvider {
  url: string;
  apiKey: string;
  calls: RecordedCall[];
  subscriptions: Map<string, FakeSubscription>;
  mode: FakeMode;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

/**
 * A real HTTP server on a loopback port speaking the Stripe-shaped subset the billing client uses:
 * checkout sessions, subscriptions (read, price change, cancel at period end), portal sessions.
 */
export async function startFakeBillingProvider(): Promise<FakeBillingProvider> {
  let sequence = 0;
  const next = (prefix: string) => `${prefix}_${++sequence}`;
  const fake: FakeBillingProvider = { url: '', apiKey: 'sk_test_fake', calls: [], subscriptions: new Map(), mode: 'up', close: async () => undefined };
  const pending = new Set<ServerResponse>();

  const server: Server = createServer(async (req, res) => {
    if (fake.mode === 'down') return void req.socket.destroy();
    if (fake.mode === 'hang') return void pending.add(res);
    const form = await readForm(req);
    const path = req.url ?? '';
    fake.calls.push({ method: req.method ?? '', path, form, authorization: req.headers.authorization });
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) return reply(401, { error: { message: 'bad key' } });
    const subMatch = /^\/v1\/subscriptions\/([\w-]+)$/.exec(path);
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = next('cs_test');
      return reply(200, { id, url: `https://checkout.fake/pay/${id}`, mode: form.mode });
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      return reply(200, { id: next('bps'), url: `https://portal.fake/${form.customer}` });
    }
    const sub = subMatch ? fake.subscriptions.get(subMatch[1]) : undefined;
    if (!sub) return reply(404, { error: { message: 'no such resource' } });
    if (req.method === 'POST') {
      if (form['items[0][price]']) sub.items.data[0].price.id = form['items[0][price]'];
      if (form.cancel_at_period_end) sub.cancel_at_period_end = form.cancel_at_period_end === 'true';
    }
    return reply(200, sub);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const res of pending) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}
