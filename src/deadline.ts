/**
 * `work`, or `late()` thrown once `ms` pass without an answer (the late answer is dropped). A plain timer, cleared on
 * the answer: every store call and every queue add passes here, and an `AbortSignal.timeout` would keep its timer,
 * signal and a `DOMException` alive for the whole `ms` (BENCHMARKS §1b).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
