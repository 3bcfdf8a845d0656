import { signPayload, verifySignatureHeader } from './hmac-signature';

// Expected values computed outside Node with:
//   printf '%s' '1700000000.{"id":"evt_1"}' | openssl dgst -sha256 -hmac <secret>
const T = 1700000000;
const BODY = '{"id":"evt_1"}';
const SIG_WHSEC_TEST = 'c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925';
const SIG_WHSEC_OLD = 'ef1b1b7e4b312671a75ef2a03e10529f7834a6528a49db77ad6568c8c8017843';

describe('signPayload', () => {
  it('produces the Stripe-layout header for a known vector', () => {
    expect(signPayload(BODY, 'whsec_test', T)).toBe(`t=${T},v1=${SIG_WHSEC_TEST}`);
  });

  it('signs Buffer bodies byte-for-byte like strings', () => {
    expect(signPayload(Buffer.from(BODY), 'whsec_test', T)).toBe(`t=${T},v1=${SIG_WHSEC_TEST}`);
  });

  it('emits one v1 entry per secret, in order', () => {
    expect(signPayload(BODY, ['whsec_test', 'whsec_old'], T)).toBe(`t=${T},v1=${SIG_WHSEC_TEST},v1=${SIG_WHSEC_OLD}`);
  });

  it('defaults the timestamp to now', () => {
    const before = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),/.exec(signPayload(BODY, 'whsec_test'))?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('rejects an empty secret list and a bad timestamp', () => {
    expect(() => signPayload(BODY, [], T)).toThrow(/at least one secret/);
    expect(() => signPayload(BODY, 'whsec_test', 1.5)).toThrow(/timestamp/);
  });
});

describe('verifySignatureHeader', () => {
  const header = `t=${T},v1=${SIG_WHSEC_TEST}`;
  const now = T + 10;

  it('accepts a valid signature within tolerance', () => {
    expect(verifySignatureHeader(BODY, header, 'whsec_test', { now })).toEqual({ ok: true, timestamp: T });
  });

  it('accepts a Buffer body', () => {
    expect(verifySignatureHeader(Buffer.from(BODY), header, 'whsec_test', { now }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifySignatureHeader('{"id":"evt_2"}', header, 'whsec_test', { now })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects the wrong secret', () => {
    expect(verifySignatureHeader(BODY, header, 'whsec_other', { now })).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a tampered timestamp even within tolerance', () => {
    expect(verifySignatureHeader(BODY, `t=${T + 1},v1=${SIG_WHSEC_TEST}`, 'whsec_test', { now }).ok).toBe(false);
  });

  it('rejects timestamps outside the default 300 s tolerance, in either direction', () => {
    expect(verifySignatureHeader(BODY, header, 'whsec_test', { now: T + 300 }).ok).toBe(true);
    expect(verifySignatureHeader(BODY, header, 'whsec_test', { now: T + 301 })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifySignatureHeader(BODY, header, 'whsec_test', { now: T - 301 })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('honours a custom tolerance', () => {
    expect(verifySignatureHeader(BODY, header, 'whsec_test', { now, toleranceSeconds: 5 })).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
  });

  it('uses the system clock by default', () => {
    expect(verifySignatureHeader(BODY, signPayload(BODY, 'whsec_test'), 'whsec_test').ok).toBe(true);
    expect(verifySignatureHeader(BODY, header, 'whsec_test').ok).toBe(false);
  });

  it('accepts when any of several v1 entries matches (secret rotation)', () => {
    const rotated = `t=${T},v1=${SIG_WHSEC_OLD},v1=${SIG_WHSEC_TEST}`;
    expect(verifySignatureHeader(BODY, rotated, 'whsec_test', { now }).ok).toBe(true);
    expect(verifySignatureHeader(BODY, rotated, 'whsec_old', { now }).ok).toBe(true);
    expect(verifySignatureHeader(BODY, rotated, 'whsec_new', { now }).ok).toBe(false);
  });

  it('ignores whitespace, unknown schemes and uppercase hex', () => {
    const messy = ` t=${T} , v0=deadbeef, v1=${SIG_WHSEC_TEST.toUpperCase()} ,junk`;
    expect(verifySignatureHeader(BODY, messy, 'whsec_test', { now })).toEqual({ ok: true, timestamp: T });
  });

  it.each([
    ['empty', ''],
    ['no timestamp', `v1=${SIG_WHSEC_TEST}`],
    ['no v1 entry', `t=${T},v0=${SIG_WHSEC_TEST}`],
    ['non-numeric timestamp', `t=abc,v1=${SIG_WHSEC_TEST}`],
    ['negative timestamp', `t=-${T},v1=${SIG_WHSEC_TEST}`],
    ['duplicate timestamp', `t=${T},t=${T + 1},v1=${SIG_WHSEC_TEST}`],
    ['garbage', 'not a signature header'],
  ])('rejects a malformed header (%s)', (_case, bad) => {
    expect(verifySignatureHeader(BODY, bad, 'whsec_test', { now })).toEqual({ ok: false, reason: 'malformed_header' });
  });
});
