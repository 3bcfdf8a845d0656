import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Browser, chromium, Page } from 'playwright-core';
import { freePort, serveStaticSite, StaticSite } from '@bursar/dev-infra';
import { pollUntil } from '@bursar/testing';
import { CONSOLE_DIST, ControlStack, DEV_SECRET, ensureConsoleBuilt, startControlStack } from './console-stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.join(__dirname, 'artifacts');
const OWNER = 'owner@example.com';
const TEAMMATE = 'teammate@example.com';
jest.setTimeout(30_000);

/**
 * The console in a real headless Chromium against real control and development identity
 * processes: sign in (code + PKCE through the sign-in form), create an agent, approve one held
 * payment and deny another, edit a policy with its live preview, read the audit log. Each page is
 * saved as a screenshot under test/artifacts.
 */
describe('console in a browser', () => {
  let stack: ControlStack;
  let site: StaticSite;
  let browser: Browser;
  let page: Page;
  let agentKey = '';
  let budgetId = '';
  const browserErrors: string[] = [];
  const refreshes: number[] = [];

  const agentApi = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${stack.controlUrl}/control/v1/agent/${route}`, {
      method,
      headers: { authorization: `Bearer ${agentKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are read loosely in assertions
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const pay = (amount: number) =>
    agentApi('POST', 'payment_intents', { budget_id: budgetId, amount_cents: amount, counterparty: 'vendor.example', idempotency_key: randomUUID() });
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const signIn = async (email: string) => {
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Development secret').fill(DEV_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('header').getByText(email).waitFor();
  };
  const signOut = async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  };
  const go = async (hash: string, heading: string) => {
    await page.click(`nav >> text=${hash}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    await mkdir(ARTIFACTS, { recursive: true });
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    stack = await startControlStack('browser', origin);
    site = await serveStaticSite({ dir: CONSOLE_DIST, port, config: { controlUrl: stack.controlUrl, issuer: stack.issuer, clientId: 'bursar-console' } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (e) => browserErrors.push(e.message));
    page.on('request', (r) => r.postData()?.includes('grant_type=refresh_token') && refreshes.push(Date.now()));
  }, 180_000);

  // An exception the page did not catch fails the step: errors must show as messages, never a blank page.
  afterEach(() => expect(browserErrors.splice(0)).toEqual([]));

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await stack?.stop();
  });

  it('signs in through the development provider and creates a workspace', async () => {
    await page.goto(site.url);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(OWNER);
    await page.getByLabel('Development secret').fill('not-the-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That is not the development secret.').waitFor();
    await page.getByLabel('Development secret').fill(DEV_SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('header').getByText(OWNER).waitFor();
    expect(new URL(page.url()).searchParams.has('code')).toBe(false);

    await page.getByText('You are not a member of any workspace yet').waitFor();
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByLabel('New workspace name').fill('Acme');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Members of Acme' }).waitFor();
    await page.getByRole('cell', { name: OWNER }).waitFor();
  });

  it('creates an agent and shows its key once', async () => {
    await go('Agents', 'Agents');
    await page.getByText('No agents yet.').waitFor();
    // An API refusal shows the envelope's message, not a blank page.
    await page.getByLabel('Name').fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('form', { name: 'Create agent' }).getByRole('alert').getByText(/name/).waitFor();
    await page.getByLabel('Name').fill('shopper');
    await page.getByRole('button', { name: 'Create agent' }).click();
    agentKey = (await page.getByTestId('shown-once').textContent()) ?? '';
    expect(agentKey).toMatch(/^krt_test_/);
    await page.getByTestId('agent-shopper').getByText('active').waitFor();

    const budget = await agentApi('POST', 'budgets', { budget_cents: 100_000 });
    expect(budget.status).toBe(201);
    budgetId = budget.body.data.id;
    await page.getByRole('button', { name: 'Budgets and decisions' }).click();
    await page.getByRole('meter', { name: /remaining/ }).waitFor();
    await shot('agents');
  });

  it('shows held payments in Approvals; approving gives the agent its cosignature', async () => {
    const held = await pay(20_000);
    expect(held.status).toBe(202);
    await go('Approvals', 'Approvals');
    // The queue refreshes by itself: this payment was held after the page loaded.
    const later = await pay(15_000);
    expect(later.status).toBe(202);
    const card = page.getByTestId(`held-${held.body.data.id}`);
    await page.getByTestId(`held-${later.body.data.id}`).waitFor();
    await page.getByTestId('queue-summary').getByText('2 held, 350.00 USD in total').waitFor();
    await card.getByRole('button', { name: 'Impact' }).click();
    await card.getByTestId('impact').getByText('approval_threshold').waitFor();
    await card.getByText('Denying returns').waitFor();
    await shot('approvals');

    // By keyboard: Enter on Approve, then Enter on the confirmation, which takes the focus.
    await card.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    await card.getByRole('button', { name: 'Yes, approve' }).waitFor();
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached' });

    const read = await agentApi('GET', `payment_intents/${held.body.data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.state).toBe('pending');
    expect(read.body.cosignature).toMatch(/^ey/);
    const verified = await fetch(`${stack.controlUrl}/control/v1/cosign/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ authorization: read.body.cosignature }),
    }).then((r) => r.json() as Promise<{ data: { valid: boolean; amount_cents: number } }>);
    expect(verified.data).toMatchObject({ valid: true, amount_cents: 20_000 });
  });

  it('denies a held payment (its reservation comes back) and a held action', async () => {
    const before = await agentApi('GET', `budgets/${budgetId}`);
    expect(before.body.data.remaining_cents).toBe(100_000 - 20_000 - 15_000);
    const card = page.locator('[data-testid^="held-"]');
    await pollUntil(() => card.count(), (n) => n === 1);
    await card.getByRole('button', { name: 'Deny' }).click();
    await card.getByRole('button', { name: 'Yes, deny' }).click();
    await page.getByText('Nothing is waiting for a person.').waitFor();
    const after = await agentApi('GET', `budgets/${budgetId}`);
    expect(after.body.data.remaining_cents).toBe(100_000 - 20_000);

    // Held actions have their own queue.
    const action = await fetch(`${stack.controlUrl}/control/v1/agent/actions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ budget_id: budgetId, action_type: 'llm.call', resource: 'gpt', cost_cents: 12_000 }),
    });
    expect(action.status).toBe(202);
    await page.getByRole('form', { name: 'Queue filters' }).locator('select').first().selectOption('action_intents');
    const held = page.getByTestId(`held-${((await action.json()) as { data: { id: string } }).data.id}`);
    await held.getByText('llm.call gpt').waitFor();
    await held.getByRole('button', { name: 'Deny' }).click();
    await held.getByRole('button', { name: 'Yes, deny' }).click();
    await page.getByText('Nothing is waiting for a person.').waitFor();
    expect((await agentApi('GET', `budgets/${budgetId}`)).body.data.remaining_cents).toBe(100_000 - 20_000);
  });

  it('edits a policy with a live preview; refusals show next to the field they name', async () => {
    await go('Policies', 'Policies');
    await page.getByRole('button', { name: 'Edit policy of shopper' }).click();
    const editor = page.getByRole('form', { name: 'Policy of shopper' });
    await editor.getByLabel('Cost (cents)').fill('25000');
    await editor.getByTestId('preview-outcome').getByText('requires_approval').waitFor();

    // The form's own check: a rule setting that is not a whole number never reaches control.
    await editor.getByRole('button', { name: 'Add rule' }).click();
    await editor.getByLabel('Rule 1 maximum (cents)').fill('-5');
    await editor.locator('#rules-0-max_cents-error').getByText('a whole number of cents').waitFor();
    // Control's check, placed by the envelope's param: action types are control's to judge.
    await editor.getByLabel('Rule 1 kind').selectOption('action_allowlist');
    await editor.getByLabel('Rule 1 allowed (comma-separated)').fill('Payment');
    await editor.locator('#rules-0-allow-error').getByText(/rules\[0\]\.allow must be an array of action types/).waitFor();
    expect(await editor.getByLabel('Rule 1 allowed (comma-separated)').getAttribute('aria-invalid')).toBe('true');
    // The same refusal in the JSON view lands on the JSON.
    await editor.getByRole('button', { name: 'Edit rules as JSON' }).click();
    await editor.getByLabel('Rules (JSON array)').fill('[{"kind":"cost_cap","max_cents":-5}]');
    await editor.locator('#rules_json-error').getByText(/rules\[0\]\.max_cents/).waitFor();
    await editor.getByLabel('Rules (JSON array)').fill('[]');
    await editor.getByRole('button', { name: 'Edit rules as fields' }).click();
    await editor.getByText('No rules beyond the caps above.').waitFor();
    // And a cap pair control refuses together names the field to fix.
    await editor.getByLabel('Velocity cap (cents)').fill('100');
    await editor.locator('#velocity_window_seconds-error').getByText(/set together/).waitFor();
    await editor.getByLabel('Velocity cap (cents)').fill('');

    await editor.getByLabel('Hold for approval above (cents)').fill('30000');
    await editor.getByTestId('preview-outcome').getByText('allowed').waitFor();
    await shot('policies');
    await editor.getByRole('button', { name: 'Save policy' }).click();
    await page.getByRole('cell', { name: '300.00 USD' }).waitFor();

    const allowed = await pay(25_000);
    expect(allowed.status).toBe(201);
    const denied = await pay(60_000);
    expect(denied.status).toBe(403);
    expect(denied.body.decision.rule).toBe('session_budget');
  });

  it('tests a stricter draft against the last 7 days: totals and the decisions it would change', async () => {
    await go('Policies', 'Policies');
    await page.getByRole('button', { name: 'Edit policy of shopper' }).click();
    const editor = page.getByRole('form', { name: 'Policy of shopper' });
    // The 250.00 payment allowed above would now exceed the per-transaction cap.
    await editor.getByLabel('Per-transaction cap (cents)').fill('20000');
    await editor.getByRole('button', { name: 'Test against last 7 days' }).click();
    const panel = editor.getByTestId('backtest');
    await panel.getByTestId('backtest-summary').waitFor();
    expect(await panel.getByTestId('backtest-summary').textContent()).toMatch(/^\d+ requests re-decided; [1-9]\d* would change\.$/);
    // Totals carry the amounts per currency next to the counts.
    expect(await panel.getByTestId('backtest-totals').textContent()).toMatch(/denied\d+ · [\d.]+ USD\d+ · [\d.]+ USD/);
    await panel.getByTestId('backtest-changes').getByRole('cell', { name: 'denied by per_transaction_cap' }).first().waitFor();
    await panel.getByRole('cell', { name: '250.00 USD' }).first().waitFor();
  });

  it('adds a velocity rule and a payee allowlist as typed rules; each denies a payment', async () => {
    await go('Policies', 'Policies');
    await page.getByRole('button', { name: 'Edit policy of shopper' }).click();
    const editor = page.getByRole('form', { name: 'Policy of shopper' });
    const adder = editor.getByRole('group', { name: 'Add a rule' });
    await adder.getByRole('combobox').selectOption('spend_window');
    await adder.getByRole('button', { name: 'Add rule' }).click();
    await editor.getByLabel('Rule 1 maximum (cents)').fill('50000');
    await editor.getByLabel('Rule 1 window (seconds)').fill('3600');
    await adder.getByRole('combobox').selectOption('resource_allowlist');
    await adder.getByRole('button', { name: 'Add rule' }).click();
    await editor.getByLabel('Rule 2 allowed (comma-separated)').fill('vendor.example');
    await editor.getByTestId('preview-outcome').waitFor();
    await shot('policies-rules');
    await editor.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText(/Saved; the policy is now at version \d+\./).waitFor();

    // 200.00 + 250.00 are in the hour's window already: 100.00 more passes 500.00.
    const overWindow = await pay(10_000);
    expect(overWindow.status).toBe(403);
    expect(overWindow.body.decision.rule).toBe('spend_window');
    const elsewhere = await agentApi('POST', 'payment_intents', { budget_id: budgetId, amount_cents: 100, counterparty: 'other.example', idempotency_key: randomUUID() });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.decision.rule).toBe('resource_allowlist');
    expect((await pay(100)).status).toBe(201);

    // The saved rules read back as typed rows.
    await page.getByRole('button', { name: 'Edit policy of shopper' }).click();
    expect(await editor.getByLabel('Rule 1 kind').inputValue()).toBe('spend_window');
    expect(await editor.getByLabel('Rule 2 allowed (comma-separated)').inputValue()).toBe('vendor.example');
  });

  it('charts spending and reads the audit log', async () => {
    await go('Spending', 'Spending');
    await page.getByTestId('chart-time').locator('svg.recharts-surface').first().waitFor();
    const rules = page.getByTestId('denial-rules');
    for (const rule of ['session_budget', 'spend_window', 'resource_allowlist']) await rules.getByRole('cell', { name: rule }).waitFor();
    await shot('spending');
    // The page shows control's figures as they are: the same totals the route answers.
    const token = await page.evaluate<string>("JSON.parse(sessionStorage.getItem('bursar.console.tokens')).access_token");
    const slug = ((await (await fetch(`${stack.controlUrl}/control/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { slug: string }[] }).data[0].slug;
    const summary = (await (await fetch(`${stack.controlUrl}/control/v1/workspaces/${slug}/spending?granularity=day&from=${new Date(Date.now() - 7 * 86_400_000).toISOString()}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      data: { totals: { outcome: string; count: number; amount_cents: number }[] };
    };
    const shown = await page.getByTestId('spending-totals').locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-outcome'), ...[...r.querySelectorAll('td')].slice(1).map((td) => td.textContent)]));
    const cents = (n: number) => `${Math.floor(n / 100)}.${String(n % 100).padStart(2, '0')} USD`;
    const byOutcome = (rows: (string | null)[][]) => [...rows].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(byOutcome(shown)).toEqual(byOutcome(summary.data.totals.map((t) => [t.outcome, String(t.count), cents(t.amount_cents)])));
    expect(summary.data.totals.find((t) => t.outcome === 'denied')?.count).toBeGreaterThanOrEqual(3);

    await go('Audit log', 'Audit log');
    await page.getByTestId('audit-event').first().waitFor();
    await page.getByRole('textbox', { name: 'Action' }).fill('approval.granted');
    const granted = page.getByTestId('audit-event');
    await pollUntil(() => granted.count(), (n) => n === 1);
    await granted.getByRole('button').click();
    await granted.locator('pre.snapshot').waitFor();
    await shot('audit');
  });

  it('invites a member who accepts through the link; the owner changes their role', async () => {
    await go('Workspaces', 'Workspaces');
    await page.getByLabel('Invite by email').fill(TEAMMATE);
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('shown-once').textContent()) ?? '';
    expect(link).toContain('#/workspaces?invitation=');
    await shot('workspaces');

    // The teammate opens the link signed out: after sign-in the console returns to it.
    await signOut();
    await page.goto(link);
    await signIn(TEAMMATE);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByRole('heading', { name: 'Members of Acme' }).waitFor();
    await go('Approvals', 'Approvals');
    await page.getByText('approving and denying needs the approve capability').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    await signOut();
    await signIn(OWNER);
    await go('Workspaces', 'Workspaces');
    await page.getByLabel(`Role of ${TEAMMATE}`).selectOption('admin');
    await page.getByRole('button', { name: 'Change role' }).click();
    await page.getByRole('button', { name: 'Yes, change role' }).click();
    await page.getByRole('button', { name: 'Change role' }).waitFor({ state: 'detached' });
    expect(await page.getByLabel(`Role of ${TEAMMATE}`).inputValue()).toBe('admin');
  });

  it('is readable at phone width, renews its token before expiry, and forgets it on sign-out', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await go('Approvals', 'Approvals');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await shot('approvals-phone');

    // Access tokens live 10 s here: the console renews its token before expiry and keeps working.
    await pollUntil(async () => refreshes.length, (n) => n > 0, 15_000, 100);
    await go('Agents', 'Agents');
    await page.getByTestId('agent-shopper').waitFor();
    await signOut();
    expect(await page.evaluate<string | null>("sessionStorage.getItem('bursar.console.tokens')")).toBeNull();
  });
});
