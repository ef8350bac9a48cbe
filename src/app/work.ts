import { agentWork } from '../agent/agent-work.js';
import { homeWork } from '../home/home-work.js';
import { insightsWork } from '../insights/insights-work.js';
import type { RunnableTask } from '../task.js';
import { digestMachinery } from '../visitors/digest/machinery.js';
import { visitorsWork } from '../visitors/visitors-work.js';
import type { Work } from './dispatch.js';

/**
 * Every kind of work a door hands on, by its kind: each feature declares its own tasks and what runs them (and
 * /insights' digest gets the visitors' digest machinery here). Composed beside the dispatch and the workers rather
 * than under them, so neither stands on the features' work.
 */
export const WORK: Work = new Map(
  [...agentWork, ...homeWork, ...insightsWork(digestMachinery), ...visitorsWork].map((task: RunnableTask) => [
    task.kind,
    task,
  ]),
);
