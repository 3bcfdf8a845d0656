import { generateSecretKey, SecretBox } from '@bursar/crypto';
import { openWebhookSecrets, sealWebhookSecrets } from '../webhook-secrets';
import { newSigningSecret, sealEndpointSecret, signingSecrets } from './endpoint-secret';

describe('signing secrets', () => {
  const box = SecretBox.fromBase64(generateSecretKey());
  const endpointId = '6f1c1c52-51c4-4d0a-9b1e-0b7c3f1d2a11';
  const current = newSigningSecret('whsec_test_');
  const previous = newSigningSecret('whsec_test_');
  const sealed = {
    endpointId,
    secretSealed: sealEndpointSecret(box, endpointId, current),
    previousSecretSealed: sealEndpointSecret(box, endpointId, previous),
  };

  it('signs with the previous secret only inside its overlap', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(signingSecrets(box, { ...sealed, previousSecretExpiresAt: new Date('2026-01-01T12:00:00Z') }, now)).toEqual([current, previous]);
    expect(signingSecrets(box, { ...sealed, previousSecretExpiresAt: new Date('2025-12-31T23:59:59Z') }, now)).toEqual([current]);
  });

  it('binds a sealed secret to its endpoint and a job secret to its delivery', () => {
    expect(() => signingSecrets(box, { ...sealed, endpointId: 'another', previousSecretExpiresAt: null })).toThrow();
    const forJob = sealWebhookSecrets(box, 'delivery-1', [current]);
    expect(forJob[0]).not.toContain(current);
    expect(openWebhookSecrets(box, 'delivery-1', forJob)).toEqual([current]);
    expect(() => openWebhookSecrets(box, 'delivery-2', forJob)).toThrow();
  });
});
