/**
 * What a spec's tests share (an app, its identity provider, a workspace...), started once before
 * them and closed once after, so that the spec only says what it starts. The returned object stands
 * for the started one: read it in hooks and tests, never while the spec is being declared.
 */
export function suiteStack<S extends { close(): Promise<unknown> }>(start: () => Promise<S>, timeoutMs?: number): S {
  let started: S | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(async () => {
    await started?.close();
  });
  const current = (key: string | symbol): S => {
    if (!started) throw new Error(`the suite's stack is read (${String(key)}) before it started`);
    return started;
  };
  return new Proxy({} as S, {
    get: (_, key) => {
      const stack = current(key);
      const value = Reflect.get(stack, key, stack) as unknown;
      // A method runs on the started stack itself (private state, `this`), not on this stand-in.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(stack) : value;
    },
    has: (_, key) => Reflect.has(current(key), key),
    ownKeys: () => Reflect.ownKeys(current('keys')),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(current(key), key),
  });
}
