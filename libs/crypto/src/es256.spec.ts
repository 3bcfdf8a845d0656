import { createHash } from 'node:crypto';
import { decodeProtectedHeader, errors, importJWK, SignJWT } from 'jose';
import { generateEs256KeyPair, type JWK, signJws, verifyJws } from './es256';

// Independent vector: key, RFC 7638 thumbprint and token were produced with plain
// node:crypto (ieee-p1363 ECDSA over the hand-built signing input), not with jose.
const FIXED_PUBLIC_JWK: JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: 'uDFfglw1nYIpAWag4xEykoqC9kceWhcKDNFDupWdF4k',
  y: 'iAsoflY7EiNFIumKmsIym0SOMFNjLc2rKQZqizD91Fw',
  kid: 'SK9pKb2c8sF6cJBbID_yJYw5VVAj3Cw1mNMbXeFPW6c',
  alg: 'ES256',
  use: 'sig',
};
// Claims: sub agent_123, iss https://issuer.example, aud bursar-api, iat 1700000000, exp 1700003600.
const FIXED_TOKEN =
  'eyJhbGciOiJFUzI1NiIsImtpZCI6IlNLOXBLYjJjOHNGNmNKQmJJRF95Sll3NVZWQWozQ3cxbU5NYlhlRlBXNmMiLCJ0eXAiOiJKV1QifQ' +
  '.eyJzdWIiOiJhZ2VudF8xMjMiLCJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwiYXVkIjoiYnVyc2FyLWFwaSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ' +
  '.hElxas410Oh7KGNwVoMsk_GOkQxk1zUq0hYpBz4BBFyiOXrSgzy6iZ7GAarlvOwDZdr7PdiA4TIQUyPAhtE0rg';

/** RFC 7638 thumbprint computed by hand: required members only, sorted, no whitespace. */
function ecThumbprint(jwk: JWK): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}

describe('generateEs256KeyPair', () => {
  it('returns P-256 JWKs with kid, alg and use', async () => {
    const { kid, privateJwk, publicJwk } = await generateEs256KeyPair();
    expect(publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', kid, alg: 'ES256', use: 'sig' });
    expect(publicJwk.d).toBeUndefined();
    expect(privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256', x: publicJwk.x, y: publicJwk.y });
    expect(typeof privateJwk.d).toBe('string');
  });

  it('defaults kid to the RFC 7638 thumbprint of the public key', async () => {
    const { kid, publicJwk } = await generateEs256KeyPair();
    expect(kid).toBe(ecThumbprint(publicJwk));
    expect(FIXED_PUBLIC_JWK.kid).toBe(ecThumbprint(FIXED_PUBLIC_JWK));
  });

  it('uses an explicit kid when given', async () => {
    const pair = await generateEs256KeyPair('key-2024-01');
    expect(pair.kid).toBe('key-2024-01');
    expect(pair.publicJwk.kid).toBe('key-2024-01');
  });
});

describe('signJws / verifyJws', () => {
  const issuer = 'https://auth.bursar.test';
  const audience = 'bursar-api';
  let pair: Awaited<ReturnType<typeof generateEs256KeyPair>>;
  let other: Awaited<ReturnType<typeof generateEs256KeyPair>>;

  beforeAll(async () => {
    [pair, other] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
  });

  it('signs a compact JWT that verifies against the JWKS', async () => {
    const before = Math.floor(Date.now() / 1000);
    const token = await signJws({ sub: 'agent_1', scope: 'spend' }, pair.privateJwk, pair.kid, {
      issuer,
      audience,
      expiresIn: 600,
      typ: 'at+jwt',
    });
    expect(token.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: pair.kid, typ: 'at+jwt' });

    const { payload, kid } = await verifyJws(token, { keys: [other.publicJwk, pair.publicJwk] }, { issuer, audience });
    expect(kid).toBe(pair.kid);
    expect(payload).toMatchObject({ sub: 'agent_1', scope: 'spend', iss: issuer, aud: audience });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.exp).toBe(Number(payload.iat) + 600);
  });

  it('omits typ, iss, aud and exp unless asked', async () => {
    const token = await signJws({ sub: 'agent_1' }, pair.privateJwk, pair.kid);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: pair.kid });
    const { payload } = await verifyJws(token, { keys: [pair.publicJwk] });
    expect(Object.keys(payload).sort()).toEqual(['iat', 'sub']);
  });

  it('fails when the kid is not in the JWKS', async () => {
    const token = await signJws({ sub: 'agent_1' }, pair.privateJwk, pair.kid);
    await expect(verifyJws(token, { keys: [other.publicJwk] })).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
  });

  it('fails when signed by a different key under a known kid', async () => {
    const token = await signJws({ sub: 'agent_1' }, other.privateJwk, pair.kid);
    await expect(verifyJws(token, { keys: [pair.publicJwk] })).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('fails for an expired token', async () => {
    const token = await signJws({ sub: 'agent_1' }, pair.privateJwk, pair.kid, { expiresIn: 60 });
    const later = new Date(Date.now() + 3600 * 1000);
    await expect(verifyJws(token, { keys: [pair.publicJwk] }, { currentDate: later })).rejects.toBeInstanceOf(
      errors.JWTExpired,
    );
  });

  it('fails for the wrong issuer or audience', async () => {
    const token = await signJws({ sub: 'agent_1' }, pair.privateJwk, pair.kid, { issuer, audience });
    await expect(verifyJws(token, { keys: [pair.publicJwk] }, { issuer: 'https://evil.test' })).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    );
    await expect(verifyJws(token, { keys: [pair.publicJwk] }, { audience: 'other-api' })).rejects.toBeInstanceOf(
      errors.JWTClaimValidationFailed,
    );
  });

  it('fails for a tampered payload', async () => {
    const [header, , signature] = (await signJws({ sub: 'agent_1' }, pair.privateJwk, pair.kid)).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'admin', iat: 0 })).toString('base64url');
    await expect(verifyJws(`${header}.${forged}.${signature}`, { keys: [pair.publicJwk] })).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('rejects a validly signed token that has no kid', async () => {
    const token = await new SignJWT({ sub: 'agent_1' })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(await importJWK(pair.privateJwk, 'ES256'));
    await expect(verifyJws(token, { keys: [pair.publicJwk] })).rejects.toBeInstanceOf(errors.JWSInvalid);
  });

  it('verifies a fixed token produced independently of jose', async () => {
    const { payload, kid } = await verifyJws(
      FIXED_TOKEN,
      { keys: [FIXED_PUBLIC_JWK] },
      { issuer: 'https://issuer.example', audience: 'bursar-api', currentDate: new Date(1700000100 * 1000) },
    );
    expect(kid).toBe(FIXED_PUBLIC_JWK.kid);
    expect(payload).toEqual({
      sub: 'agent_123',
      iss: 'https://issuer.example',
      aud: 'bursar-api',
      iat: 1700000000,
      exp: 1700003600,
    });
  });
});
