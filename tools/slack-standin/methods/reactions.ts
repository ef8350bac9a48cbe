import { type Answer, type Handler, type MethodCall, missing, ok, refuse, text } from './answer.js';

/**
 * `reactions.add` and `reactions.remove` by the bot on a message (their method references): a message not there is
 * `message_not_found`, one in an archived channel `is_archived` (add); the bot's same reaction twice
 * `already_reacted`, one it never added `no_reaction`. The message keeps them as Slack's message object does
 * (`reactions`: name, users, count), so conversations.history and replies show them.
 */
function react({ method, args, tenant }: MethodCall): Answer {
  const absent = ['channel', 'timestamp', 'name'].filter((k) => !text(args[k]));
  if (absent.length) return absent.includes('name') ? missing('name') : refuse('no_item_specified');
  const message = tenant.message(String(args.channel), String(args.timestamp));
  if (!message) return refuse('message_not_found');
  const name = String(args.name).replace(/^:|:$/g, '');
  const me = tenant.workspace.botUserId;
  const reactions = message.reactions ?? [];
  const reaction = reactions.find((r) => r.name === name);
  const mine = reaction?.users.includes(me) === true;
  if (method === 'reactions.remove') {
    if (!reaction || !mine) return refuse('no_reaction');
    reaction.users = reaction.users.filter((u) => u !== me);
    reaction.count -= 1;
    if (reaction.count === 0) message.reactions = reactions.filter((r) => r !== reaction);
    if (message.reactions?.length === 0) delete message.reactions;
    return ok();
  }
  if (tenant.channel(message.channel)?.archived) return refuse('is_archived');
  if (mine) return refuse('already_reacted');
  if (reaction) {
    reaction.users.push(me);
    reaction.count += 1;
  } else message.reactions = [...reactions, { name, users: [me], count: 1 }];
  return ok();
}

export const reactionMethods: Record<string, Handler> = { 'reactions.add': react, 'reactions.remove': react };
