// thehook ui: the browser page. Vanilla JS, no build step, nothing fetched
// but this server's own API.
//
// Memory text is untrusted (written by other people and by agents), so:
// - the DOM is built with createElement and text nodes only, never HTML;
// - every string shown goes through visible(), which shows hidden
//   characters (bidi controls, zero-width, tags) as markers instead of
//   letting them reorder or hide text;
// - links are only this page's own hash routes, built from ids that went
//   through encodeURIComponent; nothing from memory ever becomes an href.
'use strict';

(() => {
  const TOKEN = document.querySelector('meta[name="thehook-token"]').content;
  const $ = (sel) => document.querySelector(sel);

  // ---------------------------------------------------------------- text

  // Characters that render as nothing or change how the text around them
  // reads: C0/C1 controls (but \t and \n), soft hyphen, Arabic letter mark,
  // zero-width and joiners, LRM/RLM, bidi embeddings, overrides and
  // isolates, word joiner and invisible operators, BOM, interlinear
  // annotation marks, line/paragraph separators, and Unicode tag characters.
  const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB\u{E0000}-\u{E007F}]/gu;

  function marker(ch) {
    return `⟦U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`;
  }

  // Text as a fragment of text nodes, with each hidden character shown as a
  // marker in its own span so it stands out.
  function visible(text) {
    const frag = document.createDocumentFragment();
    const s = text == null ? '' : String(text);
    let last = 0;
    for (const m of s.matchAll(HIDDEN)) {
      if (m.index > last) frag.append(s.slice(last, m.index));
      const span = document.createElement('span');
      span.className = 'hidden-char';
      span.textContent = marker(m[0]);
      frag.append(span);
      last = m.index + m[0].length;
    }
    if (last < s.length) frag.append(s.slice(last));
    return frag;
  }

  // The same as a plain string, for places that take no spans (the tab title).
  const visibleString = (text) => String(text ?? '').replace(HIDDEN, marker);

  // el('p', {class: 'x'}, 'text', child...): strings become visible() text,
  // so no caller can forget to escape.
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'onclick') e.addEventListener('click', v);
      else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role') e.setAttribute(k, String(v));
      else e[k] = v; // type, disabled, value, hidden, colSpan: properties, not markup
    }
    add(e, kids);
    return e;
  }

  function add(parent, kids) {
    for (const k of kids.flat(Infinity)) {
      if (k == null || k === false) continue;
      parent.append(typeof k === 'object' ? k : visible(String(k)));
    }
    return parent;
  }

  // A link to one of this page's routes. The route is built by the caller
  // from fixed words and encodeURIComponent'd ids only.
  function link(route, ...kids) {
    if (!route.startsWith('/')) throw new Error('not a route');
    return el('a', { href: '#' + route }, ...kids);
  }

  const enc = encodeURIComponent;
  const R = {
    session: (id) => '/session/' + enc(id),
    item: (id) => '/item/' + enc(id),
  };

  // ---------------------------------------------------------------- format

  function parseDate(s) {
    const d = s ? new Date(s) : null;
    return d && !isNaN(d) ? d : null;
  }
  function fmtDate(s) {
    const d = parseDate(s);
    return d ? d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : (s || '');
  }
  function fmtDay(s) {
    const d = parseDate(s);
    return d ? d.toLocaleDateString(undefined, { dateStyle: 'medium' }) : (s || '');
  }
  function fmtTime(s) {
    const d = parseDate(s);
    return d ? d.toLocaleTimeString(undefined, { timeStyle: 'short' }) : '';
  }
  const fmtUsd = (n) => '$' + Number(n || 0).toFixed(Number(n) > 0 && Number(n) < 0.1 ? 4 : 2);
  const fmtInt = (n) => Number(n || 0).toLocaleString();
  function fmtBytes(n) {
    const units = ['B', 'KB', 'MB', 'GB'];
    let v = Number(n || 0), i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return `${v.toFixed(i ? 1 : 0)} ${units[i]}`;
  }
  const short = (id) => String(id || '').slice(0, 6) + '…';
  const plural = (n, word) => `${fmtInt(n)} ${word}${n === 1 ? '' : 's'}`;

  // "path:line" (or "path:3-5") → {path, line}; null when it is not one.
  function parseCited(cited) {
    const m = /^(.+):(\d+)(?:-\d+)?$/.exec(String(cited || ''));
    return m ? { path: m[1], line: Number(m[2]) } : null;
  }

  // ---------------------------------------------------------------- API

  async function api(path, body) {
    const opts = {
      headers: { 'X-Thehook-Token': TOKEN },
      credentials: 'omit',
      cache: 'no-store',
    };
    if (body !== undefined) {
      opts.method = 'POST';
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch { /* not JSON: said below */ }
    if (!res.ok) {
      const err = new Error((data && data.error) || `${res.status} ${res.statusText}`);
      err.code = data && data.code;
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function showError(err) {
    const box = $('#error');
    const msg = err instanceof Error ? err.message : String(err);
    box.replaceChildren(
      el('strong', null, err && err.code ? `Error (${err.code}): ` : 'Error: '),
      el('span', { class: 'message' }, msg),
      el('button', { type: 'button', class: 'dismiss', 'aria-label': 'Dismiss', onclick: () => { box.hidden = true; } }, '×'),
    );
    box.hidden = false;
  }

  function showNotice(msg) {
    const box = $('#notice');
    box.replaceChildren(visible(msg));
    box.hidden = !msg;
  }

  // ---------------------------------------------------------------- routing

  // "#/view/arg?k=v" → {view, arg, params}. The path is split before it is
  // decoded so an id holding "/" (encoded as %2F) stays one segment.
  function parseHash() {
    const h = location.hash.replace(/^#\/?/, '');
    const qi = h.indexOf('?');
    const params = new URLSearchParams(qi >= 0 ? h.slice(qi + 1) : '');
    const parts = (qi >= 0 ? h.slice(0, qi) : h).split('/').map((p) => {
      try { return decodeURIComponent(p); } catch { return p; }
    });
    return { view: parts[0] || 'sessions', arg: parts.slice(1).join('/'), params };
  }

  function go(route) { location.hash = '#' + route; }

  // Which nav entry a view belongs under.
  const NAV_OF = { session: 'sessions', item: 'memory', search: 'memory' };

  let navCount = 0;    // each render checks it to drop results of a view left since
  let stopPoll = null; // the live view's poller, stopped on every navigation

  // Renders the view the hash names. `again` keeps the notice (a review
  // action's result) and the scroll position: the same view, reloaded.
  async function route(again = false) {
    const my = ++navCount;
    if (stopPoll) { stopPoll(); stopPoll = null; }
    document.body.dataset.ready = '';
    $('#error').hidden = true;
    if (!again) showNotice('');
    const { view, arg, params } = parseHash();
    const navView = NAV_OF[view] || view;
    for (const a of document.querySelectorAll('nav a[data-view]')) {
      if (a.dataset.view === navView) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const main = $('#main');
    if (!again) main.replaceChildren(el('p', { class: 'loading' }, 'Loading…'));
    const box = el('div', { class: 'view view-' + view });
    const ctx = { alive: () => my === navCount };
    const render = VIEWS[view] || notFound;
    try {
      await render(box, arg, params, ctx);
    } catch (err) {
      if (!ctx.alive()) return;
      if (!box.querySelector('h1')) box.prepend(el('h1', null, TITLES[view] || 'thehook'));
      showError(err);
    }
    if (!ctx.alive()) return;
    const y = window.scrollY;
    main.replaceChildren(box);
    window.scrollTo(0, again ? y : 0);
    document.body.dataset.ready = view;
    performance.mark('view-ready:' + view);
  }

  const TITLES = {
    sessions: 'Sessions', session: 'Session', next: 'Next session', memory: 'Memory',
    search: 'Search', item: 'Memory item', review: 'Review', cost: 'Cost', health: 'Health',
  };

  // Runs fn every ms while the view that started it is shown.
  function poll(ctx, fn, ms) {
    if (!ctx.alive()) return;
    let busy = false;
    const timer = setInterval(async () => {
      if (busy || document.hidden) return;
      busy = true;
      try { await fn(); } catch { /* a missed tick is retried on the next */ }
      busy = false;
    }, ms);
    stopPoll = () => clearInterval(timer);
  }

  async function notFound(box) {
    box.append(el('h1', null, 'Not found'), el('p', null, 'No such view. ', link('/sessions', 'See the sessions.')));
  }

  // ---------------------------------------------------------------- pieces

  function typeTag(type) {
    const known = ['summary', 'convention', 'adr', 'gotcha', 'history', 'note', 'text', 'title'];
    return el('span', { class: 'tag type-' + (known.includes(type) ? type : 'other') }, type || '?');
  }
  // The learned safety check's score and the known attack nearest (as text).
  const learnedNote = (w) => {
    const near = w.nearest ? `; nearest known attack: ${w.nearest.label} (cosine ${w.nearest.cosine.toFixed(2)})` : '';
    return `score ${w.score.toFixed(2)}${near}`;
  };
  const badge = (cls, ...kids) => el('span', { class: 'badge ' + cls }, ...kids);
  const givenBadge = (given, used) =>
    badge('given', `given ${fmtInt(given)} · used ${fmtInt(used)}`);
  const mono = (text, cls = '') => el('span', { class: ('mono ' + cls).trim() }, text);

  // A citation that opens the markdown around its line, under its row.
  function citation(cited) {
    const c = parseCited(cited);
    if (!c) return mono(cited || '', 'citation-plain');
    const b = el('button', { type: 'button', class: 'citation', 'aria-expanded': 'false', 'data-cited': cited }, cited);
    b.addEventListener('click', () => toggleContext(b, c));
    return b;
  }

  async function toggleContext(button, c) {
    const host = button.closest('[data-context-host]') || button.parentElement;
    const open = host.querySelector(':scope > .context-panel');
    if (open) {
      open.remove();
      button.setAttribute('aria-expanded', 'false');
      return;
    }
    const panel = el('div', { class: 'context-panel' }, el('p', { class: 'loading' }, 'Loading…'));
    host.append(panel);
    button.setAttribute('aria-expanded', 'true');
    try {
      const lines = await api(`/api/markdown?path=${enc(c.path)}&line=${c.line}`);
      panel.replaceChildren(contextBlock(lines));
    } catch (err) {
      panel.replaceChildren(el('p', { class: 'warn' }, 'Cannot show this line: ', err.message));
    }
  }

  // {path, line, first, lines} as numbered lines, the cited one marked.
  function contextBlock(m) {
    const box = el('div', { class: 'context' }, el('div', { class: 'context-head mono' }, m.path));
    (m.lines || []).forEach((text, i) => {
      const n = m.first + i;
      box.append(el('div', { class: 'context-line' + (n === m.line ? ' target' : '') },
        el('span', { class: 'ln' }, String(n)), el('span', { class: 'lt' }, text)));
    });
    if (!(m.lines || []).length) box.append(el('p', { class: 'muted' }, 'The file has no such line now.'));
    return box;
  }

  // One item as a row: type, badges, its text (a link to its page), citation.
  function itemRow(it) {
    const head = el('div', { class: 'row-head' }, typeTag(it.type));
    if (it.given != null) head.append(givenBadge(it.given, it.used || 0));
    if (it.stale) head.append(badge('stale', 'stale', typeof it.stale === 'string' ? ': ' + it.stale : ''));
    if (it.withheld) head.append(badge('withheld', 'withheld: ', it.withheld.rule));
    return el('div', { class: 'item-row', 'data-id': it.id, 'data-context-host': '' },
      head,
      link(R.item(it.id), el('span', { class: 'text' }, it.text)),
      el('div', { class: 'row-foot' },
        citation(it.citation || `${it.path}:${it.line_start}`),
        it.author ? el('span', { class: 'author' }, it.author) : null,
        it.date ? el('span', { class: 'muted' }, fmtDay(it.date)) : null));
  }

  // A definition list from [label, value] pairs; null values are skipped.
  function facts(pairs) {
    const dl = el('dl', { class: 'facts' });
    for (const [k, v] of pairs) {
      if (v == null || v === '') continue;
      dl.append(el('dt', null, k), el('dd', null, v));
    }
    return dl;
  }

  // A table; cells are strings or nodes.
  function table(headers, rows, cls = '') {
    return el('table', { class: cls },
      el('thead', null, el('tr', null, headers.map((h) => el('th', null, h)))),
      el('tbody', null, rows.map((r) => el('tr', null, r.map((c) => el('td', null, c))))));
  }

  const section = (title, ...kids) => el('section', null, el('h2', null, title), ...kids);
  const empty = (text) => el('p', { class: 'empty' }, text);

  // A button for a POST; shows its result and reloads the view.
  function actionButton(action, id, label, run) {
    const b = el('button', { type: 'button', class: 'action action-' + action, 'data-action': action, 'data-id': id }, label);
    b.addEventListener('click', async () => {
      // Forget deletes: the first click only arms it, the second does it.
      if (action === 'forget' && b.dataset.armed !== 'yes') {
        b.dataset.armed = 'yes';
        b.textContent = 'Really forget?';
        b.classList.add('armed');
        return;
      }
      b.disabled = true;
      try {
        await run();
      } catch (err) {
        showError(err);
        b.disabled = false;
      }
    });
    return b;
  }

  const PAST = { release: 'released', confirm: 'confirmed', forget: 'forgot', rewrite: 'rewrote' };

  async function review(action, id, text) {
    const body = text === undefined ? { id } : { id, text };
    const res = await api('/api/review/' + action, body);
    showNotice(res && res.done === false ? `nothing done for ${short(id)}` : `${PAST[action]} ${short(id)}`);
    route(true);
  }

  // ---------------------------------------------------------------- views

  const state = { sessionsShown: 0 };

  function sessionRow(s) {
    const key = s.session_id || s.path;
    const title = s.title || s.gist || (s.withheld_title ? '(title withheld)' : s.path);
    const files = (s.files || []).length;
    return link(R.session(key),
      el('span', { class: 'when' }, fmtDate(s.date)),
      el('span', { class: 'who' }, s.agent || ''),
      el('span', { class: 'branch mono' }, s.branch || ''),
      el('span', { class: 'what' },
        el('span', { class: 'title' }, title),
        s.title && s.gist ? el('span', { class: 'gist' }, s.gist) : null),
      el('span', { class: 'files' }, files ? plural(files, 'file') : ''),
      el('span', { class: 'badges' },
        s.given ? givenBadge(s.given.given, s.given.used) : null,
        s.withheld_title ? badge('withheld', 'title withheld') : null));
  }

  async function viewSessions(box, _arg, _params, ctx) {
    // The server gives at most 100 at once: a reload after "More" fetches
    // as many pages as were shown.
    const data = await api('/api/sessions?offset=0&limit=100');
    while (data.sessions.length < Math.min(state.sessionsShown, data.total)) {
      const next = await api(`/api/sessions?offset=${data.sessions.length}&limit=100`);
      if (!next.sessions.length) break;
      data.sessions.push(...next.sessions);
    }
    let shown = data.sessions.length;
    state.sessionsShown = shown;
    box.append(el('h1', null, 'Sessions'),
      el('p', { class: 'lede' }, `${plural(data.total, 'captured session')}, newest first. Open one to see what thehook gave it and whether it used it.`));
    if (!data.total) {
      box.append(empty('No session captured yet. When an agent session ends, thehook captures it here (this list updates by itself).'));
    }
    const list = el('div', { class: 'sessions' });
    const addRows = (rows) => rows.forEach((s) => {
      const row = sessionRow(s);
      row.classList.add('session-row');
      list.append(row);
    });
    addRows(data.sessions);
    const more = el('button', { type: 'button', class: 'more', 'data-action': 'more' }, 'More');
    more.hidden = shown >= data.total;
    more.addEventListener('click', async () => {
      more.disabled = true;
      try {
        const next = await api(`/api/sessions?offset=${shown}&limit=100`);
        addRows(next.sessions);
        shown += next.sessions.length;
        state.sessionsShown = shown;
        more.hidden = shown >= next.total || !next.sessions.length;
      } catch (err) { showError(err); }
      more.disabled = false;
    });
    box.append(list, more);
    // Live: a new capture changes the count or the newest session.
    const seen = { total: data.total, first: data.sessions[0] && data.sessions[0].path };
    poll(ctx, async () => {
      const d = await api('/api/sessions?offset=0&limit=1');
      const first = d.sessions[0] && d.sessions[0].path;
      if (ctx.alive() && (d.total !== seen.total || first !== seen.first)) route(true);
    }, 3000);
  }

  const HOOKS = { start: 'At session start', prompt: 'At a prompt', file: 'On touching a file', subagent: 'At a subagent\'s start', unknown: 'Hook not recorded' };

  function evidence(u) {
    return `${u.how} ${u.target}${u.tool ? ' with ' + u.tool : ''}${u.at ? ' at ' + fmtTime(u.at) : ''}`;
  }

  async function viewSession(box, id) {
    const d = await api('/api/sessions/' + enc(id));
    const s = d.session;
    box.append(el('h1', null, s.title || s.gist || (s.withheld_title ? '(title withheld)' : 'Session')));
    box.append(el('p', { class: 'meta', 'data-context-host': '' },
      el('span', null, fmtDate(s.date)),
      s.agent ? el('span', null, s.agent) : null,
      s.branch ? el('span', null, 'branch ', mono(s.branch)) : null,
      citation(`${s.path}:${s.line}`)));
    if (s.withheld_title) {
      box.append(el('p', { class: 'warn' }, `Title withheld from agents (${s.withheld_title.withheld.rule}): `,
        el('span', { class: 'text' }, s.withheld_title.title)));
    }
    if (s.title && s.gist) box.append(el('p', { class: 'gist' }, 'Where it ended: ', s.gist));
    if ((s.files || []).length) {
      box.append(el('details', { class: 'files', open: s.files.length <= 10 },
        el('summary', null, `${plural(s.files.length, 'file')} changed`),
        el('ul', null, s.files.map((f) => el('li', { class: 'mono' }, f)))));
    }

    // What it was given comes first: it is why a person opens this page.
    const given = el('section', { class: 'given' }, el('h2', null, 'What thehook gave this session'));
    box.append(given);
    if (s.given) {
      const g = s.given;
      given.append(el('p', { class: 'lede' },
        `${plural(g.given, 'line')} given, ${fmtInt(g.used)} used — `,
        `at start ${g.start.given}/${g.start.used}, at prompts ${g.prompt.given}/${g.prompt.used}, on files ${g.file.given}/${g.file.used}` +
        (g.subagent && g.subagent.given ? `, to subagents ${g.subagent.given}/${g.subagent.used}` : '') + ' (given/used).'));
    }
    if (!d.marked) {
      given.append(el('p', { class: 'note' }, 'not marked: this session was not captured since thehook began marking use'));
    }
    if (!d.given.length) given.append(empty('Nothing was given to this session, or nothing was recorded.'));
    // The text of a line given, where this session's own items have it.
    const own = (c) => d.items.find((i) => i.path === c.path && c.line >= i.line_start && c.line <= i.line_end);
    const missing = []; // [citation, text span] to fill from the markdown file
    for (const b of d.given) {
      const block = el('div', { class: 'block hook-' + b.hook },
        el('h3', null, HOOKS[b.hook] || b.hook, b.hook === 'file' && b.path ? ' ' : null,
          b.hook === 'file' && b.path ? mono(b.path) : null,
          b.hook === 'subagent' && b.agent_type ? ' ' : null,
          b.hook === 'subagent' && b.agent_type ? mono(b.agent_type) : null,
          b.at ? el('span', { class: 'muted time' }, ' · ' + fmtTime(b.at)) : null));
      const ol = el('ol', { class: 'lines' });
      for (const line of b.lines) {
        const mark = !d.marked ? 'unmarked' : line.used ? 'used' : 'unused';
        const c = parseCited(line.cited);
        const item = c && own(c);
        const text = el('span', { class: 'text' }, item ? item.text : '');
        if (c && !item) missing.push([c, text]);
        ol.append(el('li', { class: 'given-line ' + mark, 'data-context-host': '' },
          d.marked ? el('span', { class: 'mark' }, line.used ? '✓ used' : '○ not used') : null,
          citation(line.cited),
          text,
          line.used ? el('span', { class: 'evidence' }, evidence(line.used)) : null));
      }
      block.append(ol);
      given.append(block);
    }
    if (d.left_out) {
      given.append(el('p', { class: 'muted' }, `… and ${plural(d.left_out, 'more line')} given, not kept (a session keeps a limited number).`));
    }
    await fillFromFiles(missing);

    box.append(section('What this session left in memory',
      d.items.length ? el('div', { class: 'items' }, d.items.map(itemRow)) : empty('No items.')));
  }

  // Fills in the text of lines given from other files: each citation's
  // line as the file reads now, a few requests at a time.
  async function fillFromFiles(missing) {
    const todo = missing.slice(0, 300);
    const worker = async () => {
      for (let job = todo.shift(); job; job = todo.shift()) {
        const [c, span] = job;
        try {
          const m = await api(`/api/markdown?path=${enc(c.path)}&line=${c.line}`);
          const text = (m.lines || [])[c.line - m.first];
          if (text != null) {
            span.append(visible(text.replace(/^\s*[-*]\s+/, '')));
            span.classList.add('from-file');
          }
        } catch { /* the file may be gone: the citation stays */ }
      }
    };
    await Promise.all([1, 2, 3, 4, 5, 6].map(worker));
  }

  async function viewNext(box) {
    const d = await api('/api/next');
    const query = Array.isArray(d.query) ? d.query.join(' ') : (d.query || '');
    box.append(el('h1', null, 'Next session'),
      el('p', { class: 'lede' }, 'What a session starting now on this branch would be given at its start.'),
      facts([['Branch', d.branch ? mono(d.branch) : '(none)'], ['Mode', d.mode], ['Query words', query || '(none)'],
        ['Tokens', d.tokens != null ? fmtInt(d.tokens) : null]]));
    for (const sec of d.sections || []) {
      box.append(section(sec.title,
        sec.why ? el('p', { class: 'why' }, sec.why) : null,
        el('ol', { class: 'lines' }, (sec.lines || []).map((l) =>
          el('li', { class: 'next-line' + (l.fits ? '' : ' left-out'), 'data-context-host': '' },
            el('span', { class: 'text' }, l.text), citation(l.cited),
            l.fits ? null : el('span', { class: 'badge' }, 'left out: over the budget'))))));
    }
    if (!(d.sections || []).length) box.append(empty('Nothing would be given.'));
    box.append(section('The exact block', el('pre', { class: 'block-text' }, d.text || '')));
  }

  // The search box shared by Memory and Search.
  function searchForm(q = '', mode = 'hybrid') {
    const input = el('input', { type: 'search', id: 'search-input', name: 'q', value: q, placeholder: 'Search memory…', 'aria-label': 'Search memory' });
    const select = el('select', { id: 'search-mode', 'aria-label': 'Search mode' },
      ['hybrid', 'lexical', 'vector'].map((m) => el('option', { value: m, selected: m === mode }, m)));
    const form = el('form', { class: 'search', role: 'search' }, input, select, el('button', { type: 'submit' }, 'Search'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const words = input.value.trim();
      if (words) go('/search?' + new URLSearchParams({ q: words, mode: select.value }));
      else go('/memory');
    });
    return form;
  }

  async function viewMemory(box, _arg, params) {
    const filter = {};
    for (const k of ['type', 'file', 'author']) if (params.get(k)) filter[k] = params.get(k);
    const d = await api('/api/items?' + new URLSearchParams(filter));
    box.append(el('h1', null, 'Memory'), searchForm());
    // Chips are buttons, not links: their values are memory text.
    const chip = (key, f) => {
      const on = filter[key] === f.name;
      return el('button', { type: 'button', class: 'chip' + (on ? ' active' : ''), 'data-facet': key, 'aria-pressed': String(on),
        onclick: () => {
          const next = { ...filter };
          if (on) delete next[key]; else next[key] = f.name;
          const qs = new URLSearchParams(next).toString();
          go('/memory' + (qs ? '?' + qs : ''));
        } }, f.name, el('span', { class: 'count' }, String(f.count)));
    };
    const facets = el('div', { class: 'facets' });
    for (const [key, label, list] of [['type', 'Types', d.kinds], ['file', 'Files', d.files], ['author', 'Authors', d.authors]]) {
      if (!(list || []).length) continue;
      facets.append(el('div', { class: 'facet' }, el('span', { class: 'facet-name' }, label), list.map((f) => chip(key, f))));
    }
    box.append(facets);
    const n = d.items.length;
    box.append(el('p', { class: 'muted' }, n < d.total ? `Showing ${n} of ${plural(d.total, 'item')}.` : plural(d.total, 'item') + '.',
      Object.keys(filter).length ? ' ' : null,
      Object.keys(filter).length ? link('/memory', 'Clear filters') : null));
    box.append(n ? el('div', { class: 'items' }, d.items.map(itemRow)) : empty('No items.'));
  }

  async function viewSearch(box, _arg, params) {
    const q = params.get('q') || '';
    const mode = params.get('mode') || 'hybrid';
    box.append(el('h1', null, 'Search'), searchForm(q, mode));
    if (!q) { box.append(empty('Type words to search memory.')); return; }
    const d = await api(`/api/search?${new URLSearchParams({ q, mode, k: '20' })}`);
    box.append(el('p', { class: 'lede' }, `${plural(d.hits.length, 'hit')} for “`, el('span', { class: 'query' }, q), `” (mode: ${d.mode})`));
    for (const n of d.notices || []) box.append(el('p', { class: 'warn notice-line' }, n));
    box.append(el('ol', { class: 'hits' }, d.hits.map((h) => el('li', { class: 'hit', 'data-id': h.id, 'data-context-host': '' },
      el('div', { class: 'row-head' }, el('span', { class: 'score mono' }, Number(h.score).toFixed(3)), typeTag(h.type),
        h.stale ? badge('stale', 'stale: ', h.stale) : null,
        (h.duplicates || []).length ? badge('dup', `${plural(h.duplicates.length, 'near-duplicate')}`) : null,
        h.withheld ? badge('withheld', 'withheld: ', h.withheld.rule) : null),
      link(R.item(h.id), el('span', { class: 'text' }, h.text)),
      el('div', { class: 'row-foot' }, citation(h.citation), h.date ? el('span', { class: 'muted' }, fmtDay(h.date)) : null)))));
    if (!d.hits.length) box.append(empty('Nothing found.'));
  }

  async function viewItem(box, id) {
    const d = await api('/api/items/' + enc(id));
    const r = d.row;
    const s = d.session;
    box.append(el('h1', null, 'Memory item'),
      el('div', { class: 'item-text', 'data-context-host': '' }, typeTag(r.type), el('p', { class: 'text' }, r.text)));
    const sessionLink = s ? (s.session_id
      ? link(R.session(s.session_id), s.title || s.gist || s.session_id)
      : el('span', null, s.title || s.path)) : null;
    const b = d.blame;
    box.append(facts([
      ['Citation', el('span', { 'data-context-host': '' }, citation(r.citation))],
      ['Date', fmtDate(r.date)],
      ['Session', sessionLink],
      ['Author', r.author],
      ['From outside', r.outside ? el('span', null, 'captured from what only this said: ', mono(r.outside)) : null],
      ['Last commit', b ? el('span', null, `${b.author}, ${fmtDay(b.date)}, `, mono(String(b.commit).slice(0, 8)), ` ${b.summary}`) : null],
      ['Given / used', r.use_says
        ? `${r.use_says}: ranks ×${Number(r.use_weight).toFixed(2)} at the hooks`
        : 'never given yet: ranks as it is'],
      ['Stale', r.stale ? el('span', { class: 'badge stale' }, r.stale) : null],
      ['Withheld', d.withheld ? el('span', null, el('span', { class: 'badge withheld' }, d.withheld.rule), ' matched: ', mono(d.withheld.matched)) : null],
      ['Why', d.withheld && d.withheld.reason ? d.withheld.reason : null],
      ['Learned check', d.withheld && d.withheld.score != null ? learnedNote(d.withheld) : null],
      ['Id', mono(r.id)],
    ]));
    if (d.context) box.append(section('In its file', contextBlock(d.context)));
  }

  async function viewReview(box) {
    const d = await api('/api/review');
    box.append(el('h1', null, 'Review'),
      el('p', { class: 'lede' }, 'What waits for a person: items kept from agents, items that cite what is gone, and items that say nearly the same.'));

    box.append(section(`Withheld (${d.withheld.length})`,
      el('p', { class: 'why' }, 'A safety rule keeps these from every agent until someone releases them.'),
      d.withheld.length ? d.withheld.map((w) => el('div', { class: 'review-row', 'data-id': w.id, 'data-context-host': '' },
        el('div', { class: 'row-head' }, typeTag(w.type), badge('withheld', w.withheld.rule)),
        el('p', { class: 'text' }, w.text),
        el('p', { class: 'small' }, 'matched: ', mono(w.withheld.matched),
          w.committed_by ? el('span', null, ' · committed by ', w.committed_by) : null),
        w.withheld.reason ? el('p', { class: 'small' }, w.withheld.reason) : null,
        el('div', { class: 'row-foot' }, citation(w.citation),
          el('span', { class: 'actions' },
            actionButton('release', w.id, 'Release', () => review('release', w.id)),
            actionButton('forget', w.id, 'Forget', () => review('forget', w.id))))))
        : empty('Nothing withheld.')));

    box.append(section(`Stale (${d.stale.length})`,
      el('p', { class: 'why' }, 'These cite a path or symbol that is gone from the checkout.'),
      d.stale.length ? d.stale.map(staleRow) : empty('Nothing stale.')));

    box.append(section(`Near-duplicates (${d.duplicates.length})`,
      el('p', { class: 'why' }, 'Pairs that say nearly the same: forget one.'),
      d.duplicates.length ? d.duplicates.map((p) => el('div', { class: 'review-row pair' },
        [p.first, p.second].map((it) => el('div', { class: 'side', 'data-id': it.id, 'data-context-host': '' },
          el('div', { class: 'row-head' }, typeTag(it.type)),
          link(R.item(it.id), el('span', { class: 'text' }, it.text)),
          el('div', { class: 'row-foot' }, citation(`${it.path}:${it.line_start}`),
            el('span', { class: 'actions' }, actionButton('forget', it.id, 'Forget', () => review('forget', it.id))))))))
        : empty('No near-duplicates.')));
  }

  function staleRow(st) {
    const it = st.item;
    const row = el('div', { class: 'review-row', 'data-id': it.id, 'data-context-host': '' },
      el('div', { class: 'row-head' }, typeTag(it.type), badge('stale', st.stale)),
      link(R.item(it.id), el('span', { class: 'text' }, it.text)));
    const editor = el('div', { class: 'editor', hidden: true });
    const area = el('textarea', { rows: 4, 'aria-label': 'New text', 'data-id': it.id });
    area.value = it.text; // a property, never markup
    editor.append(area, el('div', { class: 'actions' },
      actionButton('save', it.id, 'Save', () => review('rewrite', it.id, area.value)),
      el('button', { type: 'button', class: 'action', onclick: () => { editor.hidden = true; } }, 'Cancel')));
    const rewrite = el('button', { type: 'button', class: 'action', 'data-action': 'rewrite', 'data-id': it.id,
      onclick: () => { editor.hidden = !editor.hidden; if (!editor.hidden) area.focus(); } }, 'Rewrite');
    row.append(el('div', { class: 'row-foot' }, citation(st.citation),
      el('span', { class: 'actions' },
        actionButton('confirm', it.id, 'Confirm', () => review('confirm', it.id)),
        rewrite,
        actionButton('forget', it.id, 'Forget', () => review('forget', it.id)))), editor);
    return row;
  }

  // An SVG bar chart of one number per day.
  function barChart(days, value, label) {
    const NS = 'http://www.w3.org/2000/svg';
    const svg = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
      if (text != null) e.textContent = text;
      return e;
    };
    const W = 760, H = 220, L = 56, B = 28, T = 12, Rm = 8;
    const max = Math.max(...days.map(value), 0) || 1;
    const step = (W - L - Rm) / Math.max(days.length, 1);
    const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${label} per day over ${days.length} days` });
    chart.append(svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - Rm, y2: H - B }),
      svg('line', { class: 'axis', x1: L, y1: T, x2: L, y2: H - B }));
    const fmt = label === 'cost' ? (v) => fmtUsd(v) : (v) => fmtInt(v);
    chart.append(svg('text', { class: 'label', x: L - 6, y: T + 4, 'text-anchor': 'end' }, fmt(max)),
      svg('text', { class: 'label', x: L - 6, y: H - B, 'text-anchor': 'end' }, fmt(0)));
    days.forEach((d, i) => {
      const v = value(d);
      const h = (v / max) * (H - B - T);
      const bar = svg('rect', { class: 'bar', x: L + i * step + step * 0.15, y: H - B - h, width: step * 0.7, height: Math.max(h, 0), 'data-day': d.day });
      bar.append(svg('title', null, `${d.day}: ${fmt(v)}`));
      chart.append(bar);
      if (i === 0 || i === days.length - 1 || i === Math.floor(days.length / 2)) {
        chart.append(svg('text', { class: 'label', x: L + i * step + step / 2, y: H - 8, 'text-anchor': 'middle' }, d.day.slice(5)));
      }
    });
    return chart;
  }

  const spendText = (s) => `${plural(s.calls, 'call')}, ${fmtInt(s.input_tokens)} tokens in, ${fmtInt(s.output_tokens)} out, ${fmtUsd(s.cost_usd)}` +
    (s.estimated_calls ? ` (tokens estimated for ${s.estimated_calls})` : '');

  async function viewCost(box) {
    const d = await api('/api/cost');
    const days = d.bill.days || [];
    box.append(el('h1', null, 'Cost'),
      el('p', { class: 'lede' }, `What the LLM calls of captures and consolidations cost over the last ${days.length} days.`),
      facts([['Total', spendText(d.bill.total)], ['Other (consolidations)', spendText(d.bill.other)]]));

    const byUsd = days.some((x) => x.spend.cost_usd > 0);
    box.append(section(byUsd ? 'Cost per day' : 'Calls per day',
      byUsd ? null : el('p', { class: 'note' }, 'No cost in dollars was reported, so the chart shows calls per day.'),
      barChart(days, byUsd ? (x) => x.spend.cost_usd : (x) => x.spend.calls, byUsd ? 'cost' : 'calls')));

    // What is left today: the budget minus the last day's spend (today).
    const today = days.length ? days[days.length - 1].spend : { calls: 0, cost_usd: 0 };
    const bu = d.budget || {};
    const left = [];
    if (bu.calls != null) left.push(`${plural(Math.max(bu.calls - today.calls, 0), 'call')} of ${fmtInt(bu.calls)}`);
    if (bu.usd != null) left.push(`${fmtUsd(Math.max(bu.usd - today.cost_usd, 0))} of ${fmtUsd(bu.usd)}`);
    box.append(section('Daily budget',
      facts([['Calls per day', bu.calls != null ? fmtInt(bu.calls) : 'no limit'],
        ['Dollars per day', bu.usd != null ? fmtUsd(bu.usd) : 'no limit'],
        ['Left today', left.length ? left.join(', ') : 'no budget set']]),
      d.budget_spent ? el('p', { class: 'warn' }, 'Budget spent: ', d.budget_spent, '. Captures run without the LLM until tomorrow.') : null));

    const sessions = [...(d.bill.sessions || [])].sort((a, b) => b.spend.cost_usd - a.spend.cost_usd || b.spend.calls - a.spend.calls);
    box.append(section('Sessions by cost', sessions.length
      ? table(['Session', 'Calls', 'Tokens in', 'Tokens out', 'Cost'], sessions.map((x) => [
        link(R.session(x.session_id), mono(x.session_id)), fmtInt(x.spend.calls), fmtInt(x.spend.input_tokens),
        fmtInt(x.spend.output_tokens), fmtUsd(x.spend.cost_usd)]), 'num')
      : empty('No session cost anything.')));

    box.append(section('Captured without the LLM',
      el('p', { class: 'why' }, 'These sessions were written by the heuristic capture, and why.'),
      (d.heuristic || []).length ? el('ul', { class: 'plain' }, d.heuristic.map((h) => el('li', null,
        h.session_id ? link(R.session(h.session_id), h.title || h.session_id) : el('span', null, h.title || h.path),
        el('span', { class: 'muted' }, ' · ' + fmtDate(h.date)),
        el('div', { class: 'small' }, h.why || 'why is no longer in the log'))))
        : empty('None.')));
  }

  function embeddingsText(e) {
    if (!e) return null;
    if (e.state === 'ready') return `ready: ${e.model}` + (e.model_dir && e.model_dir.path ? ` (${e.model_dir.path})` : '');
    if (e.state === 'missing') return `lexical only: ${e.reason}${e.fix ? '; ' + e.fix : ''}`;
    return JSON.stringify(e);
  }

  function jobRows(jobs) {
    return jobs.map(([j, reason]) => [
      link(R.session(j.session_id), mono(j.session_id)), j.agent || '', fmtDate(j.queued_at), j.origin || '',
      reason != null ? el('span', { class: 'reason' }, reason) : (j.reason || '')]);
  }

  async function viewHealth(box) {
    const d = await api('/api/health');
    const st = d.status;
    const retry = el('button', { type: 'button', class: 'action', 'data-action': 'retry' }, 'Retry failed captures');
    retry.addEventListener('click', async () => {
      retry.disabled = true;
      try {
        const r = await api('/api/retry', {});
        showNotice(r && r.started ? 'retrying the failed captures in the background' : 'nothing to retry');
        route(true);
      } catch (err) { showError(err); retry.disabled = false; }
    });
    box.append(el('h1', null, 'Health'), el('p', { class: 'lede' }, 'Project ', mono(st.project)));

    box.append(section('Checks', el('ul', { class: 'checks' }, d.checks.map((c) =>
      el('li', { class: 'check level-' + c.level, 'data-level': c.level },
        el('span', { class: 'level' }, c.level === 'ok' ? '✓ ok' : c.level === 'warn' ? '! warn' : '✕ error'),
        el('span', { class: 'name' }, c.name),
        el('span', { class: 'detail' }, c.detail),
        c.fix ? el('span', { class: 'fix' }, 'Fix: ', c.fix) : null)))));

    const g = st.given_last_30_days;
    const share = g && g.given ? ` (${Math.round((100 * g.used) / g.given)}%)` : '';
    box.append(section('Memory',
      facts([
        ['Sessions', fmtInt(st.sessions)],
        ['Knowledge files', fmtInt(st.knowledge_files)],
        ['Stale items', st.stale_items ? link('/review', fmtInt(st.stale_items)) : '0'],
        ['Withheld items', st.withheld_items ? link('/review', fmtInt(st.withheld_items)) : '0'],
        ['Captures queued', fmtInt(st.queued_captures)],
        ['Captures failed', fmtInt(st.failed_captures)],
        ['Given, last 30 days', g ? `${plural(g.given, 'line')} given, ${fmtInt(g.used)} used${share}; ` +
          `start ${g.start.given}/${g.start.used}, prompts ${g.prompt.given}/${g.prompt.used}, files ${g.file.given}/${g.file.used}` +
          (g.subagent && g.subagent.given ? `, subagents ${g.subagent.given}/${g.subagent.used}` : '') : null],
        ['LLM today', st.llm && st.llm.today ? spendText(st.llm.today) : null],
        ['LLM budget', st.llm && st.llm.budget_spent ? 'spent: ' + st.llm.budget_spent : null],
      ])));

    const ix = st.index || {};
    box.append(section('Index',
      facts([
        ['Path', mono(st.index_path)],
        ['Items', fmtInt(ix.items)],
        ['Vectors', fmtInt(ix.vectors)],
        ['Size', fmtBytes(ix.size_bytes)],
        ['By type', ix.by_type ? Object.entries(ix.by_type).map(([k, v]) => `${k} ${v}`).join(', ') : null],
        ['Rebuilt', st.index_rebuilt ? fmtDate(st.index_rebuilt) : null],
        ['Embeddings', embeddingsText(st.embeddings)],
        ['Hooks', (st.hooks || []).length ? el('ul', { class: 'plain' }, st.hooks.map((h) => el('li', { class: 'mono' }, h))) : 'none'],
        ['Config warnings', (st.config_warnings || []).length ? el('ul', { class: 'plain' }, st.config_warnings.map((w) => el('li', null, w))) : null],
      ])));

    const cols = ['Session', 'Agent', 'Queued', 'Origin', 'Reason'];
    box.append(section(`Queued captures (${d.queued.length})`,
      d.queued.length ? table(cols, jobRows(d.queued.map((j) => [j, null]))) : empty('None waiting.')));
    box.append(section(`Failed captures (${d.failed.length})`,
      d.failed.length ? table(cols, jobRows(d.failed.map((f) => [f.job, f.reason || '']))) : empty('None failed.'),
      retry));
  }

  const VIEWS = {
    sessions: viewSessions, session: viewSession, next: viewNext, memory: viewMemory, search: viewSearch,
    item: viewItem, review: viewReview, cost: viewCost, health: viewHealth,
  };

  // ---------------------------------------------------------------- start

  async function header() {
    try {
      const o = await api('/api/overview');
      $('#project').replaceChildren(visible(o.project),
        el('span', { class: 'muted' }, ` · ${plural(o.sessions, 'session')} · ${plural(o.items, 'item')}`));
      document.title = `${visibleString(o.project)} · thehook`;
    } catch { /* the view shows its own error */ }
  }

  window.addEventListener('hashchange', () => route());
  header();
  route();
})();
