/** 'pending' when `promise` has not settled within `ms`, else how it settled: to show that something hangs. */
export async function settledWithin<T>(
  promise: Promise<T>,
  ms: number,
): Promise<'pending' | { value: T } | { error: unknown }> {
  promise.catch(() => {}); // the caller awaits it later, once it is expected to settle
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'pending'>((resolve) => {
    timer = setTimeout(() => resolve('pending'), ms);
  });
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}
