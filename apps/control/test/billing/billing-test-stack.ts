import { ControlTestApp, startIdentifiedTestApp } from '../control-test-app';
import { createWorkspace } from '../control-fixtures';
import { FakeBillingProvider, startFakeBillingProvider } from '../billing-provider.fake';
import type { TestIdentityProvider } from '../test-identity-provider';

/** The webhook signing secret the billing stack's app verifies provider events with. */
export const BILLING_WEBHOOK_SECRET = 'whsec_billing_test_secret';

export interface BillingTestStack {
  idp: TestIdentityProvider;
  fake: FakeBillingProvider;
  t: ControlTestApp;
  /** An identity token per person named at start. */
  tokens: Record<string, string>;
  /** The workspace the first person created. */
  workspaceId: string;
  close(): Promise<void>;
}

/**
 * The control app wired to a fake billing provider and a test identity provider that knows `people`;
 * the first of them owns the workspace `slug`.
 */
export async function startBillingTestStack(
  label: string,
  { people, slug, env = {} }: { people: string[]; slug: string; env?: Record<string, string> },
): Promise<BillingTestStack> {
  const fake = await startFakeBillingProvider();
  const { idp, t, close } = await startIdentifiedTestApp(label, people, {
    BILLING_API_URL: fake.url,
    BILLING_API_KEY: fake.apiKey,
    BILLING_WEBHOOK_SECRET,
    ...env,
  });
  const tokens: Record<string, string> = {};
  for (const p of people) tokens[p] = await idp.token(p);
  const { id: workspaceId } = await createWorkspace(t.app, tokens[people[0]], { name: slug, slug });
  return {
    idp,
    fake,
    t,
    tokens,
    workspaceId,
    close: async () => {
      await close();
      await fake.close();
    },
  };
}
