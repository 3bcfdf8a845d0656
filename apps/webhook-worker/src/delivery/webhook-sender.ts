import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import http, { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPrivateAddress, urlHost } from '@bursar/queue';

/** Enough of a response body to show a person why a receiver refused a delivery. */
const KEPT_BODY_BYTES = 4096;

export interface SendOutcome {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  error: string | null;
  durationMs: number;
}

/**
 * DNS lookup that refuses private addresses at connect time, so a host that resolved publicly when
 * its endpoint was registered cannot be re-pointed at the internal network (DNS rebinding).
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, options, (err, address: string | LookupAddress[], family?: number) => {
    if (err) return callback(err, '', 0);
    const all = Array.isArray(address) ? address : [{ address, family: family ?? 4 }];
    const blocked = all.find((a) => isPrivateAddress(a.address));
    if (blocked) return callback(new Error(`refusing private address ${blocked.address} for ${hostname}`), '', 0);
    (callback as (e: null, a: string | LookupAddress[], f?: number) => void)(null, address, family);
  });
};

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * POSTs webhook bodies over keep-alive connections; never throws, reports what happened. Redirects
 * are not followed (a 3xx is reported as a failed delivery), so no hop can lead past the filter.
 */
export class WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
  ) {}

  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refused = (error: string) => Promise.resolve({ status: null, headers: null, body: null, error, durationMs: elapsed() });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refused('invalid endpoint URL');
    }
    // Node skips a custom lookup when the host is an IP literal, so literals are checked here.
    const literal = urlHost(target);
    if (!this.allowPrivate && isIP(literal) && isPrivateAddress(literal)) return refused(`refusing private address ${literal}`);
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, durationMs: elapsed() });
      };
      const failed = (error: string) => finish({ status: null, headers: null, body: null, error });

      const secure = target.protocol === 'https:';
      const req = (secure ? https : http).request(target, {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        agent: secure ? this.httpsAgent : this.httpAgent,
        ...(!this.allowPrivate && { lookup: publicOnlyLookup }),
      });
      // One deadline for the whole exchange: connect, send, and the full response.
      const timer = setTimeout(() => {
        failed(`timed out after ${this.timeoutMs} ms`);
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (err) => failed(err.message));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < KEPT_BODY_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        res.on('error', (err) => failed(err.message));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          finish({
            status,
            headers: flattenHeaders(res.headers),
            body: Buffer.concat(chunks).subarray(0, KEPT_BODY_BYTES).toString('utf8'),
            error: status >= 200 && status < 300 ? null : `receiver answered ${status}`,
          });
        });
      });
      req.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
