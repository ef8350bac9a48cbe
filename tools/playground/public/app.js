// The playground page: polls the playground server for the channel, sends what is typed and clicked.
// Message bodies arrive as HTML rendered (and escaped) by the server from the app's Block Kit.

const $ = (id) => document.getElementById(id);
const POLL_MS = 400;
let openThread = null;
let tab = 'channel'; // or 'messages': the app's Messages tab (the person's DM with it)
let lastState = null;
const rendered = new Map(); // element id → last HTML, so unchanged messages are left alone

async function api(path, body) {
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function messageHtml(m, inThread) {
  const root = el('div');
  const avatar = el('div', 'avatar', m.author.slice(0, 1).toUpperCase());
  const body = el('div', 'body');
  const meta = el('div', 'meta');
  meta.append(el('b', '', m.author));
  if (m.bot) meta.append(el('span', 'app', 'APP'));
  if (!inThread && !m.ephemeral) {
    const reply = el('button', 'reply-action', 'Reply in thread');
    reply.type = 'button';
    reply.dataset.thread = m.ts;
    meta.append(reply);
  }
  body.append(meta);
  if (m.ephemeral) body.append(el('div', 'only-you', '👁 Only visible to you'));
  if (m.channel.startsWith('D') && tab === 'channel')
    body.append(el('div', 'only-you', '✉ In your direct messages with Mintlify'));
  const content = el('div', 'content');
  content.innerHTML = m.html;
  body.append(content);
  if (m.files.length) {
    const files = el('div', 'files');
    for (const f of m.files) {
      const link = el('a', 'file');
      link.href = f.url;
      if (f.image) {
        const img = el('img');
        img.src = f.url;
        img.alt = f.title;
        link.append(img);
      } else {
        link.setAttribute('download', f.name);
        link.append(el('span', 'kind', f.name.split('.').pop().toUpperCase()), el('span', '', f.title || f.name));
      }
      files.append(link);
    }
    body.append(files);
  }
  if (m.reactions.length) {
    const reactions = el('div', 'reactions');
    for (const r of m.reactions) {
      const chip = el('span', 'reaction', `${r.emoji} ${r.count}`);
      chip.title = `:${r.name}:`;
      reactions.append(chip);
    }
    body.append(reactions);
  }
  if (!inThread && m.replies > 0) {
    const link = el('button', 'thread-link', `${m.replies} ${m.replies === 1 ? 'reply' : 'replies'}`);
    link.type = 'button';
    link.dataset.thread = m.ts;
    body.append(link);
  }
  root.append(avatar, body);
  return root.innerHTML;
}

/** Puts `messages` into `container` in order, updating changed ones in place and removing vanished ones. */
function renderList(container, messages, inThread) {
  const prefix = inThread ? 't' : 'c';
  const wanted = new Set(messages.map((m) => `${prefix}-${m.key}`));
  for (const child of [...container.querySelectorAll(':scope > .msg')]) {
    if (!wanted.has(child.id)) {
      child.remove();
      rendered.delete(child.id);
    }
  }
  const nearBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 80;
  let previous = null;
  for (const m of messages) {
    const id = `${prefix}-${m.key}`;
    let node = document.getElementById(id);
    if (!node) {
      node = el('div');
      node.id = id;
      node.dataset.key = m.key;
    }
    node.className = `msg${m.bot ? ' bot' : ''}${m.ephemeral ? ' ephemeral' : ''}`;
    const html = messageHtml(m, inThread);
    if (rendered.get(id) !== html) {
      node.innerHTML = html;
      rendered.set(id, html);
    }
    const expectedPosition = previous ? previous.nextSibling : container.querySelector(':scope > .msg');
    if (node !== expectedPosition) container.insertBefore(node, expectedPosition ?? null);
    previous = node;
  }
  if (nearBottom) container.scrollTop = container.scrollHeight;
}

function render(state) {
  lastState = state;
  $('me').textContent = state.me.name;
  const dm = `D${state.me.id}`;
  const top = state.messages.filter(
    (m) => (!m.threadTs || m.threadTs === m.ts) && (tab === 'channel' || m.channel === dm),
  );
  document.querySelector('.pane-head h1').textContent = tab === 'channel' ? '# docs' : 'Mintlify · Messages';
  document.querySelector('.pane-head .topic').hidden = tab !== 'channel';
  $('text').placeholder =
    tab === 'channel'
      ? 'Message #docs — /agent …, /visitors …, @Mintlify …'
      : 'Message Mintlify — an instruction starts a job';
  $('channel-name').classList.toggle('active', tab === 'channel');
  $('messages-tab').classList.toggle('active', tab === 'messages');
  renderPrompts(tab === 'messages' ? state.prompts : null);
  $('empty').hidden = top.length > 0;
  renderList($('messages'), top, false);
  const thread = $('thread');
  if (openThread) {
    const root = state.messages.find((m) => m.ts === openThread);
    const replies = state.messages.filter((m) => m.threadTs === openThread && m.ts !== openThread);
    thread.hidden = !root;
    const session = root && state.sessions.find((s) => s.channel === root.channel && s.threadTs === root.ts);
    $('session').textContent = session ? `${session.status}${session.title ? ` · ${session.title}` : ''}` : '';
    $('stop-session').hidden = session?.status !== 'processing';
    $('stop-session').dataset.channel = root?.channel ?? '';
    renderList($('thread-messages'), root ? [root, ...replies] : [], true);
  } else {
    thread.hidden = true;
  }
  renderModal(state.modal);
}

let shownModal = null; // the id of the modal on screen: its fields keep what the person typed

/** The app's modal (Draft a fix, What went wrong?) over the page: its blocks, then its inputs, editable. */
function renderModal(modal) {
  const backdrop = $('modal');
  backdrop.hidden = !modal;
  if (!modal) {
    shownModal = null;
    return;
  }
  if (shownModal !== modal.id) {
    shownModal = modal.id;
    $('modal-title').innerHTML = modal.title;
    $('modal-submit').textContent = modal.submit;
    $('modal-close').textContent = modal.close;
    const body = $('modal-body');
    body.innerHTML = `<div class="content">${modal.html}</div>`;
    for (const input of modal.inputs) {
      const label = el('label', 'modal-input');
      label.append(el('span', 'label', input.label));
      const field = el(input.multiline ? 'textarea' : 'input');
      field.name = input.blockId;
      field.value = input.value;
      if (input.multiline) field.rows = 6;
      label.append(field, el('span', 'field-error'));
      body.append(label);
    }
  }
  for (const field of $('modal-body').querySelectorAll('[name]')) {
    field.parentElement.querySelector('.field-error').textContent = modal.errors?.[field.name] ?? '';
  }
}

async function modalAction(action) {
  const values = {};
  for (const field of $('modal-body').querySelectorAll('[name]')) values[field.name] = field.value;
  await api('/api/modal', { id: shownModal, action, values });
  render(await api('/api/state'));
}

$('modal-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void modalAction('submit');
});
$('modal-close').addEventListener('click', () => void modalAction('close'));

/** The suggested prompts the app set for its Messages tab: a click sends the prompt's message. */
function renderPrompts(prompts) {
  const box = $('prompts');
  box.hidden = !prompts;
  const html = prompts ? JSON.stringify(prompts) : '';
  if (box.dataset.shown === html) return;
  box.dataset.shown = html;
  box.replaceChildren();
  if (!prompts) return;
  if (prompts.title) box.append(el('span', 'prompts-title', prompts.title));
  for (const p of prompts.prompts) {
    const button = el('button', 'prompt', p.title);
    button.type = 'button';
    button.dataset.message = p.message;
    box.append(button);
  }
}

async function poll() {
  try {
    render(await api('/api/state'));
  } catch {
    // The playground stopped or restarted; keep trying.
  }
  setTimeout(poll, POLL_MS);
}

async function send(textArea, errorBox, threadTs) {
  const text = textArea.value;
  errorBox.textContent = '';
  const result = await api('/api/send', { text, threadTs, dm: !threadTs && tab === 'messages' });
  if (!result.ok) {
    errorBox.textContent = result.error;
    return;
  }
  textArea.value = '';
  render(await api('/api/state'));
}

function composer(formId, textId, errorId, threadTs) {
  const form = $(formId);
  const text = $(textId);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send(text, $(errorId), threadTs());
  });
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
}

composer('composer', 'text', 'error', () => undefined);
composer('thread-composer', 'thread-text', 'thread-error', () => openThread ?? undefined);

/** Shows `table`'s page `page` (its rows in their current order, `data-page-size` at a time), as Slack pages one. */
function showTablePage(table, page) {
  const rows = [...table.tBodies[0].rows];
  const size = Number(table.dataset.pageSize) || 5;
  const last = Math.max(0, Math.ceil(rows.length / size) - 1);
  const current = Math.min(Math.max(0, page), last);
  table.dataset.page = String(current);
  rows.forEach((row, i) => {
    row.hidden = Math.floor(i / size) !== current;
  });
  const label = table.querySelector('.table-page');
  if (label) label.textContent = `${current + 1} / ${last + 1}`;
}

/** Sorts a data table by a column, as Slack does on a click of its header: numbers by value, the rest as text. */
function sortTable(table, column) {
  const descending = table.dataset.sortColumn === String(column) && table.dataset.sortOrder !== 'desc';
  const key = (row) => {
    const c = row.cells[column];
    return c?.dataset.value !== undefined ? Number(c.dataset.value) : (c?.textContent ?? '');
  };
  const rows = [...table.tBodies[0].rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
  table.tBodies[0].append(...rows);
  table.dataset.sortColumn = String(column);
  table.dataset.sortOrder = descending ? 'desc' : 'asc';
  showTablePage(table, 0);
}

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const table = target?.closest('table.data-table[data-page-size]');
  const header = target?.closest('th[data-sort]');
  if (table && header) return sortTable(table, Number(header.dataset.sort));
  const pager = target?.closest('[data-table-page]');
  if (table && pager) return showTablePage(table, Number(table.dataset.page) + Number(pager.dataset.tablePage));
  const prompt = target?.closest('[data-message]');
  if (prompt) {
    $('text').value = prompt.dataset.message;
    void send($('text'), $('error'), undefined);
    return;
  }
  const threadButton = target?.closest('[data-thread]');
  if (threadButton) {
    openThread = threadButton.dataset.thread;
    if (lastState) render(lastState);
    $('thread-text').focus();
    return;
  }
  const action = target?.closest('[data-action-id]');
  const message = action?.closest('.msg');
  if (action && message) {
    // A link button opens its URL (the browser follows the link) and Slack still sends the click.
    if (action.tagName !== 'A') action.classList.add('pending');
    api('/api/action', {
      key: message.dataset.key,
      actionId: action.dataset.actionId,
      blockId: action.dataset.blockId,
      value: action.dataset.value,
      type: action.dataset.actionType,
    }).finally(() => action.classList.remove('pending'));
  }
});

$('messages-tab').addEventListener('click', async () => {
  tab = 'messages';
  openThread = null;
  await api('/api/messages-tab', {});
  render(await api('/api/state'));
});
$('channel-name').addEventListener('click', () => {
  tab = 'channel';
  if (lastState) render(lastState);
});

// The pane is a thread of your DM with the app, next to this channel: it opens in the thread view.
$('open-pane').addEventListener('click', async () => {
  const opened = await api('/api/assistant', {});
  if (!opened.ok) return;
  openThread = opened.threadTs;
  if (lastState) render(lastState);
  $('thread-text').focus();
});

$('stop-session').addEventListener('click', async (event) => {
  const result = await api('/api/stop', { channel: event.currentTarget.dataset.channel, threadTs: openThread });
  $('thread-error').textContent = result.ok ? '' : result.error;
});

$('close-thread').addEventListener('click', () => {
  openThread = null;
  if (lastState) render(lastState);
});

function note(text) {
  $('knob-note').textContent = text;
}

$('duration').addEventListener('input', (event) => {
  $('duration-out').textContent = `${event.target.value} s`;
});
$('duration').addEventListener('change', async (event) => {
  $('duration-out').textContent = `${event.target.value} s`;
  await api('/api/knobs', { jobDurationSec: Number(event.target.value) });
  note(`New jobs run for ${event.target.value} s.`);
});
for (const radio of document.querySelectorAll('input[name=end]')) {
  radio.addEventListener('change', async () => {
    await api('/api/knobs', { nextEnd: radio.value });
    note(`The next job ends with ${radio.parentElement.textContent.trim()}.`);
  });
}
for (const button of document.querySelectorAll('[data-fault]')) {
  button.addEventListener('click', async () => {
    await api('/api/knobs', { fault: button.dataset.fault });
    note(`${button.textContent} armed: the next matching call gets it.`);
  });
}

api('/api/state').then((state) => {
  $('duration').value = state.knobs.jobDurationSec;
  $('duration-out').textContent = `${state.knobs.jobDurationSec} s`;
  const radio = document.querySelector(`input[name=end][value=${state.knobs.nextEnd}]`);
  if (radio) radio.checked = true;
  document.body.dataset.ready = 'true';
});
void poll();
