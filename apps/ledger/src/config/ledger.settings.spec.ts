import { loadConfig } from '@bursar/service-kit';
import { LedgerSettings } from './ledger.settings';

const base = {
  LEDGER_DATABASE_URL: 'postgres://u@localhost:5432/ledger',
  LEDGER_SECRET_KEY: Buffer.alloc(32, 1).toString('base64'),
};

describe('LedgerSettings', () => {
  it('defaults tokens to one hour and the issuer to localhost on the ledger port', () => {
    const s = loadConfig(LedgerSettings, { ...base, LEDGER_PORT: '4001' });
    expect(s.LEDGER_ACCESS_TOKEN_TTL_SECONDS).toBe(3600);
    expect(s.publicUrl).toBe('http://localhost:4001');
  });

  it('takes a public URL without its trailing slash and a token lifetime in seconds', () => {
    const s = loadConfig(LedgerSettings, { ...base, LEDGER_PUBLIC_URL: 'https://api.example.com/', LEDGER_ACCESS_TOKEN_TTL_SECONDS: '600' });
    expect(s.publicUrl).toBe('https://api.example.com');
    expect(s.LEDGER_ACCESS_TOKEN_TTL_SECONDS).toBe(600);
  });

  it.each([
    ['LEDGER_ACCESS_TOKEN_TTL_SECONDS', '10', /integer from 60 to 86400/],
    ['LEDGER_ACCESS_TOKEN_TTL_SECONDS', 'soon', /integer from 60 to 86400/],
    ['LEDGER_PUBLIC_URL', 'ftp://x', /LEDGER_PUBLIC_URL must be an http\(s\) URL/],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig(LedgerSettings, { ...base, [name]: value })).toThrow(message);
  });
});
