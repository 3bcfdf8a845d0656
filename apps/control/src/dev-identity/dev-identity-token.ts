/** An identity token from the development identity provider, as a person gets one with no browser. */
export interface DevIdentityToken {
  access_token: string;
  expires_in: number;
}

/**
 * Asks the development identity provider at `issuer` for `person`'s access token to the control API:
 * client credentials with the person as client id and the shared development secret.
 */
export async function devIdentityToken(issuer: string, person: string, secret: string): Promise<DevIdentityToken> {
  const res = await fetch(`${issuer.replace(/\/+$/, '')}/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${person}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=control',
  });
  if (!res.ok) throw new Error(`the identity provider ${issuer} refused a token for ${person}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as DevIdentityToken;
}

/** The shell command that fetches a token for `person`, as printed for developers. */
export function tokenCommand(issuer: string, person: string, secret: string): string {
  return `curl -s -u '${person}:${secret}' -d grant_type=client_credentials -d scope=control ${issuer}/token | jq -r .access_token`;
}
