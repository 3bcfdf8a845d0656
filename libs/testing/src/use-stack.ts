/**
 * What a spec's describe block runs against, opened once in beforeAll and closed in afterAll, so a spec
 * declares only what it needs. The handle forwards to the opened stack; reading it before beforeAll throws.
 */
export function useStack<S extends object>(open: () => Promise<S>, close: (stack: S) => Promise<void>, timeoutMs?: number): S {
  let stack: S | undefined;
  beforeAll(async () => {
    stack = await open();
  }, timeoutMs);
  afterAll(async () => {
    if (stack) await close(stack);
  });
  return new Proxy({} as S, {
    get: (_, key) => {
      if (!stack) throw new Error(`stack.${String(key)} read before beforeAll opened the stack`);
      const value = Reflect.get(stack, key, stack);
      return typeof value === 'function' ? value.bind(stack) : value;
    },
  });
}
