export type CurrencyKind = 'fiat' | 'crypto' | 'stablecoin';

interface CurrencyInfo {
  decimals: number;
  kind: CurrencyKind;
}

/** Currencies the ledger knows the precision of; any other string still works as a currency. */
const KNOWN: Record<string, CurrencyInfo> = {
  USD: { decimals: 2, kind: 'fiat' },
  EUR: { decimals: 2, kind: 'fiat' },
  GBP: { decimals: 2, kind: 'fiat' },
  CHF: { decimals: 2, kind: 'fiat' },
  CAD: { decimals: 2, kind: 'fiat' },
  AUD: { decimals: 2, kind: 'fiat' },
  SGD: { decimals: 2, kind: 'fiat' },
  INR: { decimals: 2, kind: 'fiat' },
  BRL: { decimals: 2, kind: 'fiat' },
  MXN: { decimals: 2, kind: 'fiat' },
  CNY: { decimals: 2, kind: 'fiat' },
  JPY: { decimals: 0, kind: 'fiat' },
  KRW: { decimals: 0, kind: 'fiat' },
  BHD: { decimals: 3, kind: 'fiat' },
  KWD: { decimals: 3, kind: 'fiat' },
  BTC: { decimals: 8, kind: 'crypto' },
  ETH: { decimals: 18, kind: 'crypto' },
  SOL: { decimals: 9, kind: 'crypto' },
  USDC: { decimals: 6, kind: 'stablecoin' },
  USDT: { decimals: 6, kind: 'stablecoin' },
  PYUSD: { decimals: 6, kind: 'stablecoin' },
  EURC: { decimals: 6, kind: 'stablecoin' },
};

/** Free-form currency names: letters, digits and `_ . : -`, up to 32 characters. */
export const CURRENCY_PATTERN = /^[A-Za-z0-9_.:-]{1,32}$/;

/** Ticker-shaped names (letters and digits, up to 12) are uppercased; anything else is kept as sent. */
export function normalizeCurrency(currency: string): string {
  return /^[A-Za-z0-9]{1,12}$/.test(currency) ? currency.toUpperCase() : currency;
}

export function describeCurrency(currency: string) {
  const info = KNOWN[currency];
  return {
    currency_decimals: info?.decimals ?? null,
    currency_kind: info?.kind ?? null,
    unknown_currency: info === undefined,
  };
}
