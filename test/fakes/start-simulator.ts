import { afterEach, beforeEach } from 'vitest';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../tools/simulator/server.js';

/**
 * Starts a fresh simulator before each test (so jobs, limits, faults and `requests` never leak between tests)
 * and closes it after. Call at describe level; read the instance through the returned getter inside tests.
 * Options may be a function so each test can get a fresh clock.
 */
export function useSimulator(options?: SimulatorOptions | (() => SimulatorOptions)): () => Simulator {
  let simulator: Simulator | undefined;
  beforeEach(async () => {
    simulator = await startSimulator(typeof options === 'function' ? options() : options);
  });
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });
  return () => {
    if (!simulator) throw new Error('useSimulator(): the simulator only runs inside a test');
    return simulator;
  };
}

/** A clock for `SimulatorOptions.now` that only moves when told to. */
export function manualClock(start = Date.parse('2025-06-02T12:00:00Z')): {
  now: () => number;
  advance(ms: number): void;
} {
  let time = start;
  return {
    now: () => time,
    advance: (ms) => {
      time += ms;
    },
  };
}

/** A simulator per test on a fresh manual clock; `clock` reads and moves the running test's clock. */
export function useClockedSimulator(options: SimulatorOptions): {
  sim: () => Simulator;
  clock: ReturnType<typeof manualClock>;
} {
  let current = manualClock();
  const sim = useSimulator(() => {
    current = manualClock();
    return { now: () => current.now(), ...options };
  });
  return { sim, clock: { now: () => current.now(), advance: (ms) => current.advance(ms) } };
}
