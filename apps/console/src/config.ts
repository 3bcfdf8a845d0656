/** Where the console finds control and the identity provider; served next to index.html as config.json. */
export interface ConsoleConfig {
  /** Origin of control's API (the part before /control/v1); empty for the console's own origin. */
  controlUrl: string;
  /** OpenID Connect issuer people sign in with. */
  issuer: string;
  /** The console's public client id at that issuer. */
  clientId: string;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const res = await fetch('./config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`config.json answered ${res.status}`);
  const raw = (await res.json()) as Partial<ConsoleConfig>;
  if (!raw.issuer || !raw.clientId) throw new Error('config.json needs issuer and clientId');
  return { controlUrl: raw.controlUrl ?? '', issuer: raw.issuer, clientId: raw.clientId };
}
