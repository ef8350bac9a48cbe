import { runs } from '../task.js';
import { agentTasks } from './agent-tasks.js';
import { handleTurn } from './handle-turn.js';
import { runPaneTurn } from './pane.js';
import { runStop } from './session/stop.js';
import {
  resumeCommandStart,
  resumeShortcutStart,
  resumeTurnStart,
  runCommandStart,
  runShortcutStart,
} from './start-requests.js';

/**
 * What runs each of the agent's tasks where its lane is worked (composed in src/app/app.ts), and what finishes a
 * start its dead run left when it is not run again (`RunnableTask.resume`).
 */
export const agentWork = [
  runs(agentTasks.start, runCommandStart, resumeCommandStart),
  runs(agentTasks.turn, (deps, turn) => handleTurn(deps, turn), resumeTurnStart),
  runs(
    agentTasks.pane,
    (deps, pane) => runPaneTurn(deps, pane, handleTurn),
    (deps, { turn }) => resumeTurnStart(deps, turn),
  ),
  runs(agentTasks.shortcut, runShortcutStart, resumeShortcutStart),
  runs(agentTasks.stop, runStop),
];
