import { loadEnvFile } from '../config/env-file.js';
import { applyHeapPolicy, startWithRoleFlags } from './heap-policy.js';

/**
 * Imported first by the entry point, so V8's flags for the role are set before the app's modules load: node restarts
 * in place with the role's start flags if its command line lacks them, then the heap policy is set (loading the
 * modules grows the young generation, which a flag set afterwards does not shrink: a worker then kept 8 MB
 * semi-spaces where its policy says 1, BENCHMARKS §8). The role is read as written; `parseConfig` refuses a wrong
 * one next (a role it refuses gets no flags).
 */
loadEnvFile();
const role = process.env.ROLE || 'all';
startWithRoleFlags(role);
applyHeapPolicy(role);
