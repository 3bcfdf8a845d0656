import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { WebhookSender } from './webhook-sender';

describe('WebhookSender address filter at connect time', () => {
  let server: Server;
  let port: number;
  let received = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received += 1;
      req.resume();
      res.writeHead(req.url === '/redirect' ? 307 : 204, req.url === '/redirect' ? { location: '/hook' } : {});
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    received = 0;
  });

  it('refuses a private IP literal, which Node would connect to without calling the lookup hook', async () => {
    const sender = new WebhookSender(2000, false);
    const outcome = await sender.send(`http://127.0.0.1:${port}/hook`, '{}', { 'content-type': 'application/json' });
    sender.close();
    expect(outcome.status).toBeNull();
    expect(outcome.error).toMatch(/refusing private address 127\.0\.0\.1/);
    expect(received).toBe(0);
  });

  it('refuses a hostname resolving privately', async () => {
    const sender = new WebhookSender(2000, false);
    const outcome = await sender.send(`http://localhost:${port}/hook`, '{}', {});
    sender.close();
    expect(outcome.error).toMatch(/refusing private address/);
    expect(received).toBe(0);
  });

  it('does not follow redirects: a 3xx is a failed delivery and the next hop is never requested', async () => {
    const sender = new WebhookSender(2000, true);
    const outcome = await sender.send(`http://127.0.0.1:${port}/redirect`, '{}', {});
    sender.close();
    expect(outcome.status).toBe(307);
    expect(outcome.error).toBe('receiver answered 307');
    expect(received).toBe(1);
  });

  it('delivers to a private literal when WEBHOOK_ALLOW_PRIVATE_URLS is on', async () => {
    const sender = new WebhookSender(2000, true);
    const outcome = await sender.send(`http://127.0.0.1:${port}/hook`, '{}', {});
    sender.close();
    expect(outcome).toMatchObject({ status: 204, error: null });
    expect(received).toBe(1);
  });
});
