import type { Deps } from '../deps.js';
import { runs } from '../task.js';
import { agentTasks } from './agent-tasks.js';
import { handleTurn } from './handle-turn.js';
import { runPaneTurn } from './pane.js';
import type { Turn } from './requests.js';
import { runStop } from './session/stop.js';
import { shortcutPrompt } from './shortcut-modal.js';
import { turnAttempt } from './start-attempt.js';
import { finishEarlierStart, runCommandStart, runShortcutStart } from './start-requests.js';

/** What runs each of the agent's tasks where its lane is worked (composed in src/app/app.ts). */
export const agentWork = [
  runs(agentTasks.start, runCommandStart, (deps, { audience, prompt }, run) =>
    finishEarlierStart(deps, run.id, audience, prompt),
  ),
  runs(
    agentTasks.turn,
    (deps, turn) => handleTurn(deps, turn),
    (deps, turn) => finishTurnStart(deps, turn),
  ),
  runs(
    agentTasks.pane,
    (deps, pane) => runPaneTurn(deps, pane, handleTurn),
    (deps, { turn }) => finishTurnStart(deps, turn),
  ),
  runs(agentTasks.shortcut, runShortcutStart, (deps, { userId, origin, instruction }, run) =>
    finishEarlierStart(
      deps,
      run.id,
      { userId, channel: origin.channel, threadTs: origin.threadTs },
      shortcutPrompt(instruction, origin),
    ),
  ),
  runs(agentTasks.stop, runStop),
];

function finishTurnStart(deps: Deps, turn: Turn): Promise<boolean> {
  const audience = { userId: turn.userId, channel: turn.channel, threadTs: turn.threadTs };
  return finishEarlierStart(deps, turnAttempt(turn), audience, turn.text);
}
