export default async function globalTeardown(): Promise<void> {
  const state = globalThis as { __bursarTestInfra?: { stop: () => Promise<void> } };
  const infra = state.__bursarTestInfra;
  delete state.__bursarTestInfra;
  await infra?.stop();
}
