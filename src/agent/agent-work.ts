import { runs } from '../task.js';
import { agentTasks } from './agent-tasks.js';
import { handleTurn } from './handle-turn.js';
import { runPaneTurn } from './pane.js';
import { runStop } from './session/stop.js';
import { runCommandStart, runShortcutStart } from './start-requests.js';

/** What runs each of the agent's tasks where its lane is worked (composed in src/app/app.ts). */
export const agentWork = [
  runs(agentTasks.start, runCommandStart),
  runs(agentTasks.turn, (deps, turn) => handleTurn(deps, turn)),
  runs(agentTasks.pane, (deps, pane) => runPaneTurn(deps, pane, handleTurn)),
  runs(agentTasks.shortcut, runShortcutStart),
  runs(agentTasks.stop, runStop),
];
