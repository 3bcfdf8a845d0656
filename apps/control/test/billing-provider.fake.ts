import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BILLING_API_VERSION } from '../src/billing/billing-provider.client';

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
  idempotencyKey: string | undefined;
  stripeVersion: string | undefined;
}

/** How the fake answers: normally, by dropping the connection, or never (to trip the client's timeout). */
export type FakeMode = 'up' | 'down' | 'hang';

export interface FakeBillingProvider {
  url: string;
  apiKey: string;
  calls: RecordedCall[];
  subscriptions: Map<string, FakeSubscription>;
  /** First answer per Idempotency-Key: a repeated key gets it back and changes nothing, as the provider does. */
  replays: Map<string, object>;
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
  const fake: FakeBillingProvider = { url: '', apiKey: 'sk_test_fake', calls: [], subscriptions: new Map(), replays: new Map(), mode: 'up', close: async () => undefined };
  const pending = new Set<ServerResponse>();

  const server: Server = createServer(async (req, res) => {
    if (fake.mode === 'down') return void req.socket.destroy();
    if (fake.mode === 'hang') return void pending.add(res);
    const form = await readForm(req);
    const path = req.url ?? '';
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    const stripeVersion = req.headers['stripe-version'] as string | undefined;
    fake.calls.push({ method: req.method ?? '', path, form, authorization: req.headers.authorization, idempotencyKey, stripeVersion });
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) return reply(401, { error: { message: 'bad key' } });
    // What the official SDK sends: a pinned API version, and an idempotency key on every POST.
    if (stripeVersion !== BILLING_API_VERSION) return reply(400, { error: { message: `unexpected Stripe-Version ${stripeVersion}` } });
    if (req.method === 'POST' && !idempotencyKey) return reply(400, { error: { message: 'POST without Idempotency-Key' } });
    if (req.headers['content-type'] !== undefined && req.headers['content-type'] !== 'application/x-www-form-urlencoded') {
      return reply(400, { error: { message: 'body must be form-encoded' } });
    }
    const replay = idempotencyKey ? fake.replays.get(idempotencyKey) : undefined;
    if (replay) return reply(200, replay);
    const remember = (body: object) => {
      if (idempotencyKey) fake.replays.set(idempotencyKey, body);
      return reply(200, body);
    };
    const subMatch = /^\/v1\/subscriptions\/([\w-]+)$/.exec(path);
    if (req.method === 'POST' && path === '/v1/checkout/sessions') {
      const id = next('cs_test');
      return remember({ id, object: 'checkout.session', url: `https://checkout.fake/pay/${id}`, mode: form.mode });
    }
    if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
      return remember({ id: next('bps'), object: 'billing_portal.session', url: `https://portal.fake/${form.customer}` });
    }
    const sub = subMatch ? fake.subscriptions.get(subMatch[1]) : undefined;
    if (!sub) return reply(404, { error: { message: 'no such resource' } });
    if (req.method === 'POST') {
      if (form['items[0][price]']) sub.items.data[0].price.id = form['items[0][price]'];
      if (form.cancel_at_period_end) sub.cancel_at_period_end = form.cancel_at_period_end === 'true';
      return remember({ ...sub, items: { data: sub.items.data.map((i) => ({ ...i, price: { ...i.price } })) } });
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
