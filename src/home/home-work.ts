import { runs } from '../task.js';
import { homeTasks } from './home-tasks.js';
import { tabOpened } from './publish.js';

/** What runs App Home's task where its lane is worked (composed in src/app/app.ts). */
export const homeWork = [runs(homeTasks.opened, tabOpened)];
