// Polling for a condition that another instance reaches asynchronously (within a time bound).

/** Polls until check() is true or the time is up; returns the last value seen. */
export async function within<T>(ms: number, probe: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await probe();
  while (!check(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    v = await probe();
  }
  return v;
}
