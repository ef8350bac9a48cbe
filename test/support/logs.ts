import { createLogger, type Logger } from '../../src/log.js';

/** A logger that keeps its lines, so tests can read what was logged (and that no secret was). */
export function captureLogs(): { log: Logger; lines: string[]; text: () => string } {
  const lines: string[] = [];
  return { log: createLogger('debug', (line) => lines.push(line)), lines, text: () => lines.join('\n') };
}
