import { loadEnvFile } from '../config/env-file.js';
import { applyHeapPolicy } from './heap-policy.js';

/**
 * Imported first by the entry point, so V8's heap flags for the role are set before the app's modules load: loading
 * them grows the young generation, which a flag set afterwards does not shrink (a worker then kept 8 MB semi-spaces
 * where its policy says 1, BENCHMARKS §8). The role is read as written; `parseConfig` refuses a wrong one next.
 */
loadEnvFile();
applyHeapPolicy(process.env.ROLE || 'all');
