/* errata default theme: copy buttons, theme toggle, keyboard shortcut, and the search /
   log-diagnosis UI, which talks to the WebAssembly engine in static/search-worker.js
   (falling back to a plain word search over entries.json when the module cannot run).
   No framework, no build step, ES2019. Data-derived text only ever goes through
   textContent / setAttribute, never innerHTML. */
(function () {
  'use strict';

  var doc = document;
  var html = doc.documentElement;
  var THEME_KEY = 'errata-theme';

  function rootPath() {
    var r = doc.body ? doc.body.getAttribute('data-root') : null;
    if (!r) return './';
    return r.charAt(r.length - 1) === '/' ? r : r + '/';
  }

  function safe(name, fn) {
    try { fn(); } catch (e) {
      if (window.console && console.warn) console.warn('errata: ' + name + ' failed', e);
    }
  }

  /* ---------- live announcements ---------- */
  var announceTimer = null;
  function announce(msg) {
    var region = doc.getElementById('a11y-status');
    if (!region) {
      region = doc.createElement('div');
      region.id = 'a11y-status';
      region.className = 'visually-hidden';
      region.setAttribute('role', 'status');
      region.setAttribute('aria-live', 'polite');
      doc.body.appendChild(region);
    }
    region.textContent = '';
    clearTimeout(announceTimer);
    announceTimer = setTimeout(function () { region.textContent = msg; }, 50);
  }

  /* ---------- clipboard ---------- */
  function fallbackCopy(text) {
    var active = doc.activeElement;
    var ta = doc.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.setAttribute('aria-hidden', 'true');
    ta.className = 'copy-buffer';
    doc.body.appendChild(ta);
    ta.select();
    var ok = false;
    try { ok = doc.execCommand('copy'); } catch (e) { ok = false; }
    doc.body.removeChild(ta);
    if (active && typeof active.focus === 'function') active.focus();
    return ok;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).then(
        function () { return true; },
        function () { return fallbackCopy(text); }
      );
    }
    return Promise.resolve(fallbackCopy(text));
  }

  function flash(btn, ok) {
    if (!btn.hasAttribute('data-label')) btn.setAttribute('data-label', btn.textContent);
    var label = btn.getAttribute('data-label');
    btn.textContent = ok ? 'Copied' : 'Copy failed';
    btn.classList.toggle('is-copied', ok);
    announce(ok ? 'Copied to clipboard' : 'Copy failed; select the text and copy it manually');
    clearTimeout(btn._errataTimer);
    btn._errataTimer = setTimeout(function () {
      btn.textContent = label;
      btn.classList.remove('is-copied');
    }, 1500);
  }

  function initCopy() {
    doc.addEventListener('click', function (ev) {
      var t = ev.target;
      if (!t || !t.closest) return;
      var btn = t.closest('button.copy');
      if (!btn) return;
      var text = null;
      if (btn.hasAttribute('data-copy')) {
        text = btn.getAttribute('data-copy');
      } else if (btn.classList.contains('copy-code')) {
        var block = btn.closest('.code-block');
        var pre = block ? block.querySelector('pre') : null;
        if (pre) {
          var code = pre.querySelector('code') || pre;
          text = code.textContent;
        }
      }
      if (text === null) return;
      copyText(text.replace(/\n$/, '')).then(function (ok) { flash(btn, ok); });
    });
  }

  function initCodeBlocks() {
    var pres = doc.querySelectorAll('pre.highlight');
    for (var i = 0; i < pres.length; i++) {
      var pre = pres[i];
      if (pre.parentNode && pre.parentNode.classList && pre.parentNode.classList.contains('code-block')) continue;
      var wrap = doc.createElement('div');
      wrap.className = 'code-block';
      var head = doc.createElement('div');
      head.className = 'code-head';
      var lang = doc.createElement('span');
      lang.className = 'code-lang';
      lang.textContent = pre.getAttribute('data-lang') || '';
      var btn = doc.createElement('button');
      btn.type = 'button';
      btn.className = 'copy copy-code';
      btn.textContent = 'Copy';
      btn.setAttribute('aria-label', 'Copy code');
      head.appendChild(lang);
      head.appendChild(btn);
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(head);
      wrap.appendChild(pre);
    }
  }

  /* ---------- theme ---------- */
  function currentTheme() {
    return html.getAttribute('data-theme') === 'dark' ? 'dark' : 'light';
  }

  function syncToggle() {
    var btn = doc.getElementById('theme-toggle');
    if (!btn) return;
    var dark = currentTheme() === 'dark';
    btn.setAttribute('aria-pressed', dark ? 'true' : 'false');
    btn.setAttribute('aria-label', 'Dark theme');
    btn.setAttribute('title', dark ? 'Switch to light theme' : 'Switch to dark theme');
  }

  function setTheme(t, save) {
    html.setAttribute('data-theme', t);
    if (save) {
      try { window.localStorage.setItem(THEME_KEY, t); } catch (e) { /* private mode */ }
    }
    syncToggle();
  }

  function storedTheme() {
    try { return window.localStorage.getItem(THEME_KEY); } catch (e) { return null; }
  }

  function initTheme() {
    if (!html.getAttribute('data-theme')) setTheme('light', false);
    syncToggle();
    var btn = doc.getElementById('theme-toggle');
    if (btn) {
      btn.addEventListener('click', function () {
        var next = currentTheme() === 'dark' ? 'light' : 'dark';
        setTheme(next, true);
        announce(next === 'dark' ? 'Dark theme on' : 'Light theme on');
      });
    }
    if (window.matchMedia) {
      var mq = window.matchMedia('(prefers-color-scheme: dark)');
      var onChange = function (e) {
        var s = storedTheme();
        if (s !== 'light' && s !== 'dark') setTheme(e.matches ? 'dark' : 'light', false);
      };
      if (mq.addEventListener) mq.addEventListener('change', onChange);
      else if (mq.addListener) mq.addListener(onChange);
    }
  }

  /* ---------- navigation state ---------- */
  function initNav() {
    var links = doc.querySelectorAll('.site-nav a');
    var here = location.pathname;
    for (var i = 0; i < links.length; i++) {
      var p = links[i].pathname;
      if (!p || p === '/') continue;
      if (here === p || here === p + 'index.html') links[i].setAttribute('aria-current', 'page');
      else if (here.indexOf(p) === 0) links[i].setAttribute('aria-current', 'true');
    }
  }

  /* ---------- keyboard ---------- */
  function isTypingTarget(el) {
    if (!el) return false;
    if (el.isContentEditable) return true;
    var tag = (el.tagName || '').toLowerCase();
    return tag === 'input' || tag === 'textarea' || tag === 'select';
  }

  function submitForm(form) {
    if (typeof form.requestSubmit === 'function') { form.requestSubmit(); return; }
    var b = form.querySelector('[type="submit"]');
    if (b) b.click(); else form.submit();
  }

  function initKeys() {
    doc.addEventListener('keydown', function (ev) {
      if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
      if (isTypingTarget(ev.target)) return;
      var input = doc.getElementById('search-input');
      if (!input) return;
      ev.preventDefault();
      input.focus();
      try { var n = input.value.length; input.setSelectionRange(n, n); } catch (e) { /* type=search */ }
    });

    var input = doc.getElementById('search-input');
    if (input && input.tagName.toLowerCase() === 'textarea' && input.form) {
      input.addEventListener('keydown', function (ev) {
        if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && ev.keyCode !== 229) {
          ev.preventDefault();
          submitForm(input.form);
        } else if (ev.key === 'Escape') {
          input.blur();
        }
      });
    }
  }

  /* ---------- fallback search over entries.json ---------- */
  function words(s) {
    var out = [];
    var parts = String(s || '').toLowerCase().split(/\W+/);
    for (var i = 0; i < parts.length; i++) if (parts[i].length >= 2) out.push(parts[i]);
    return out;
  }

  function uniqueWords(s) {
    var seen = Object.create(null);
    var out = [];
    var w = words(s);
    for (var i = 0; i < w.length; i++) {
      if (!seen[w[i]]) { seen[w[i]] = true; out.push(w[i]); }
    }
    return out;
  }

  function toSet(list) {
    var set = new Set();
    for (var i = 0; i < list.length; i++) set.add(list[i]);
    return set;
  }

  function arr(v) { return Array.isArray(v) ? v : []; }

  function prepare(e) {
    var sigs = arr(e.signatures).map(String);
    var tags = arr(e.tags).map(String);
    return {
      e: e,
      sig: toSet(words(sigs.join(' '))),
      title: toSet(words(e.title)),
      tags: toSet(words(tags.join(' '))),
      summary: toSet(words(e.summary)),
      sigList: sigs
    };
  }

  function score(doc_, qwords) {
    var s = 0;
    for (var i = 0; i < qwords.length; i++) {
      var w = qwords[i];
      if (doc_.sig.has(w)) s += 5;
      if (doc_.title.has(w)) s += 3;
      if (doc_.tags.has(w)) s += 2;
      if (doc_.summary.has(w)) s += 1;
    }
    return s;
  }

  function bestSignature(d, qwords) {
    var best = null, bestHits = 0;
    for (var i = 0; i < d.sigList.length; i++) {
      var ws = toSet(words(d.sigList[i]));
      var hits = 0;
      for (var j = 0; j < qwords.length; j++) if (ws.has(qwords[j])) hits++;
      if (hits > bestHits) { bestHits = hits; best = d.sigList[i]; }
    }
    return best;
  }

  function shorten(s, n) {
    s = String(s).replace(/\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
  }

  function el(tag, cls, text) {
    var n = doc.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }

  function clear(node) { while (node && node.firstChild) node.removeChild(node.firstChild); }

  /* The fallback answers in the engine's own shape, so one renderer serves both. */
  function fallbackResult(index, q, limit) {
    var qwords = uniqueWords(q);
    var hits = [];
    if (qwords.length) {
      for (var i = 0; i < index.length; i++) {
        var s = score(index[i], qwords);
        if (s > 0) hits.push({ d: index[i], s: s });
      }
    }
    hits.sort(function (x, y) {
      return y.s - x.s || String(x.d.e.title || '').localeCompare(String(y.d.e.title || ''));
    });
    return {
      query: q,
      engine: 'fallback',
      hits: hits.slice(0, limit).map(function (h) {
        var e = h.d.e;
        return {
          slug: e.slug, title: e.title, url: e.url,
          category: e.category_title || e.category || '',
          severity: e.severity || '', score: h.s,
          matched_signature: bestSignature(h.d, qwords), coverage: null
        };
      })
    };
  }

  var fallbackIndex = null;
  function loadFallbackIndex() {
    if (!fallbackIndex) {
      fallbackIndex = fetch(rootPath() + 'entries.json', { credentials: 'same-origin' })
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.json();
        })
        .then(function (data) {
          var entries = data && Array.isArray(data.entries) ? data.entries : [];
          return entries.filter(function (e) { return e && typeof e === 'object'; }).map(prepare);
        });
      fallbackIndex.catch(function () { fallbackIndex = null; });
    }
    return fallbackIndex;
  }

  /* ---------- the search engine, in a Web Worker ---------- */
  function noop() { /* nothing */ }

  function deferred() {
    var d = {};
    d.promise = new Promise(function (res, rej) { d.resolve = res; d.reject = rej; });
    return d;
  }

  var INIT_TIMEOUT_MS = 30000;

  var engine = (function () {
    var worker = null;
    var readyP = null;
    var pending = Object.create(null);
    var nextId = 1;
    var first = deferred();
    first.promise.catch(noop);
    // Settles when the full index has replaced the first-search shard (at once without one).
    var whole = deferred();
    whole.promise.catch(noop);
    var upgradeListeners = [];
    var eng = {
      failed: null, ready: false, loadMs: null, firstReady: first.promise,
      partial: false, upgradeError: null, fullReady: whole.promise
    };

    function supported() {
      return typeof window.Worker === 'function' && typeof window.WebAssembly === 'object' &&
        window.WebAssembly !== null && typeof window.WebAssembly.instantiate === 'function';
    }

    function fail(err) {
      if (!eng.failed) { eng.failed = err; first.reject(err); }
    }

    function rejectAll(err) {
      var ids = Object.keys(pending);
      for (var i = 0; i < ids.length; i++) {
        var p = pending[ids[i]];
        delete pending[ids[i]];
        p.reject(err);
      }
    }

    function kill() {
      if (worker) {
        worker.onmessage = null;
        worker.onerror = null;
        worker.onmessageerror = null;
        try { worker.terminate(); } catch (e) { /* ignore */ }
      }
      worker = null;
      readyP = null;
      eng.ready = false;
    }

    function send(msg, onProgress) {
      if (!worker) return Promise.reject(new Error('the search worker is not running'));
      var id = nextId++;
      msg.id = id;
      var w = worker;
      return new Promise(function (resolve, reject) {
        pending[id] = { resolve: resolve, reject: reject, progress: onProgress || null };
        try { w.postMessage(msg); } catch (e) { delete pending[id]; reject(e); }
      });
    }

    function onMessage(ev) {
      var m = ev.data || {};
      var p = m.id !== undefined && m.id !== null ? pending[m.id] : null;
      if (m.type === 'upgraded' || m.type === 'upgrade-failed') {
        if (m.type === 'upgraded') { eng.partial = false; eng.upgradeError = null; whole.resolve(); }
        else { eng.upgradeError = new Error(m.message || 'the full search index could not be loaded'); whole.reject(eng.upgradeError); }
        for (var i = 0; i < upgradeListeners.length; i++) {
          try { upgradeListeners[i](); } catch (e) { /* ignore */ }
        }
        return;
      }
      if (!p) {
        if (m.type === 'error') rejectAll(new Error(m.message || 'search worker error'));
        return;
      }
      if (m.type === 'progress') {
        if (p.progress) { try { p.progress(m); } catch (e) { /* ignore */ } }
        return;
      }
      delete pending[m.id];
      if (m.type === 'error') p.reject(new Error(m.message || 'search worker error'));
      else p.resolve(m);
    }

    function start() {
      if (eng.failed) return Promise.reject(eng.failed);
      if (readyP) return readyP;
      if (!supported()) {
        fail(new Error('this browser has no Web Workers or WebAssembly'));
        return Promise.reject(eng.failed);
      }
      var w;
      try {
        w = new Worker(rootPath() + 'static/search-worker.js');
      } catch (e) {
        fail(new Error('could not start the search worker: ' + (e && e.message ? e.message : e)));
        return Promise.reject(eng.failed);
      }
      worker = w;
      w.onmessage = onMessage;
      w.onerror = function (ev) {
        if (ev && ev.preventDefault) ev.preventDefault();
        var err = new Error('the search worker failed' + (ev && ev.message ? ': ' + ev.message : ''));
        var wasReady = eng.ready;
        kill();
        rejectAll(err);
        if (!wasReady) fail(err);
      };
      w.onmessageerror = function () { rejectAll(new Error('could not read the search worker\u2019s answer')); };
      var timer = setTimeout(function () {
        if (worker === w && !eng.ready) {
          var err = new Error('the search index took too long to load');
          kill();
          rejectAll(err);
          fail(err);
        }
      }, INIT_TIMEOUT_MS);
      var absRoot = new URL(rootPath(), location.href).href;
      var p = send({ type: 'init', root: absRoot }).then(function (m) {
        clearTimeout(timer);
        if (worker !== w) { var gone = new Error('cancelled'); gone.cancelled = true; throw gone; }
        eng.ready = true;
        eng.loadMs = m.ms;
        eng.partial = !!m.partial;
        if (!m.partial) whole.resolve();
        first.resolve({ ms: m.ms });
        return m;
      }, function (err) {
        clearTimeout(timer);
        if (worker === w) kill();
        if (!err.cancelled) fail(err);
        throw err;
      });
      p.catch(noop);
      readyP = p;
      return p;
    }

    /* Resolves with the engine's parsed JSON. */
    function request(msg, onProgress) {
      return start().then(function () { return send(msg, onProgress); })
        .then(function (m) { return m.result; });
    }

    function cancel() {
      var err = new Error('cancelled');
      err.cancelled = true;
      kill();
      rejectAll(err);
    }

    eng.start = start;
    eng.onUpgrade = function (f) { upgradeListeners.push(f); };
    eng.request = request;
    eng.cancel = cancel;
    eng.busy = function () { return Object.keys(pending).length > 0; };
    return eng;
  })();

  /* Engine search, or the entries.json fallback when the module cannot run. */
  function searchQuery(q, limit) {
    var viaFallback = function () {
      return loadFallbackIndex().then(function (index) { return fallbackResult(index, q, limit); },
        function () { throw new Error('could not load the search index'); });
    };
    if (engine.failed) return viaFallback();
    return engine.request({ type: 'search', query: q, limit: limit }).catch(function (err) {
      if (!err.cancelled && engine.failed) return viaFallback();
      throw err;
    });
  }

  function diagnoseSource(src, onProgress) {
    if (engine.failed) {
      return Promise.reject(new Error('log diagnosis needs the search module, which could not be loaded (' +
        engine.failed.message + ')'));
    }
    var msg = { type: 'diagnose' };
    if (typeof src === 'string') msg.text = src; else msg.file = src;
    return engine.request(msg, onProgress);
  }

  /* Test hook: the same worker the page uses. */
  function initHook() {
    var hook = {
      search: function (query, limit) { return searchQuery(String(query == null ? '' : query), limit || 10); },
      diagnose: function (text) { return diagnoseSource(String(text == null ? '' : text)); }
    };
    // Ready when the full index is loaded, whose answers match `errata search`.
    Object.defineProperty(hook, 'ready', {
      enumerable: true,
      get: function () {
        engine.start().catch(noop);
        return engine.firstReady.then(function () { return engine.fullReady; });
      }
    });
    Object.defineProperty(hook, 'firstReady', {
      enumerable: true,
      get: function () { engine.start().catch(noop); return engine.firstReady; }
    });
    window.errataSearch = hook;
  }

  /* ---------- highlighting ---------- */
  var STOP = toSet(['the', 'of', 'to', 'in', 'on', 'at', 'is', 'an', 'and', 'or', 'for', 'by', 'be', 'it', 'as', 'with']);
  var CAMEL = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;

  function queryTerms(q) {
    var set = new Set();
    var runs = String(q || '').match(/[A-Za-z0-9]+/g) || [];
    for (var i = 0; i < runs.length; i++) {
      var parts = [runs[i]].concat(runs[i].match(CAMEL) || []);
      for (var j = 0; j < parts.length; j++) {
        var w = parts[j].toLowerCase();
        if (w.length >= 2 && !STOP.has(w)) set.add(w);
      }
    }
    return set;
  }

  /* Appends text to node, with the query's words wrapped in <mark>. DOM only. */
  function appendMarked(node, text, terms) {
    text = String(text == null ? '' : text);
    if (!terms || !terms.size) { node.appendChild(doc.createTextNode(text)); return; }
    var re = /[A-Za-z0-9]+/g;
    var last = 0;
    var buf = '';
    var m;
    function flush() { if (buf) { node.appendChild(doc.createTextNode(buf)); buf = ''; } }
    function mark(s) { flush(); node.appendChild(el('mark', null, s)); }
    while ((m = re.exec(text)) !== null) {
      buf += text.slice(last, m.index);
      var word = m[0];
      if (terms.has(word.toLowerCase())) {
        mark(word);
      } else {
        var pos = 0, pm;
        CAMEL.lastIndex = 0;
        while ((pm = CAMEL.exec(word)) !== null) {
          if (terms.has(pm[0].toLowerCase())) {
            buf += word.slice(pos, pm.index);
            mark(pm[0]);
            pos = pm.index + pm[0].length;
          }
        }
        buf += word.slice(pos);
      }
      last = m.index + word.length;
    }
    buf += text.slice(last);
    flush();
  }

  /* ---------- formatting ---------- */
  function fmtBytes(n) {
    n = Number(n) || 0;
    if (n < 1024) return n + (n === 1 ? ' byte' : ' bytes');
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
    if (n < 1024 * 1024 * 1024) return (n / 1048576).toFixed(1) + ' MB';
    return (n / 1073741824).toFixed(2) + ' GB';
  }

  function fmtRanks(ranks) {
    var r = arr(ranks).filter(function (x) { return typeof x === 'number' && isFinite(x); });
    if (!r.length) return '';
    r = r.slice().sort(function (a, b) { return a - b; });
    var parts = [];
    for (var i = 0; i < r.length; i++) {
      var j = i;
      while (j + 1 < r.length && r[j + 1] === r[j] + 1) j++;
      if (j - i >= 2) { parts.push(r[i] + '\u2013' + r[j]); i = j; } else parts.push(String(r[i]));
    }
    return (r.length === 1 ? 'rank ' : 'ranks ') + parts.join(', ');
  }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function sevBadge(sev) {
    sev = String(sev || '').toLowerCase();
    if (!/^[a-z]+$/.test(sev)) return null;
    var b = el('span', 'badge sev sev-' + sev);
    b.appendChild(el('span', 'visually-hidden', 'Severity: '));
    b.appendChild(doc.createTextNode(sev));
    return b;
  }

  /* Two non-empty lines make a log. Scans only as far as it needs: a pasted log can be
     100 MB, and splitting it all would stall the page. */
  function isMultiLine(text) {
    var s = String(text || '');
    var n = 0;
    var start = 0;
    while (start <= s.length && n < 2) {
      var nl = s.slice(start, start + 65536).search(/\r\n|\n|\r/);
      var end = nl < 0 ? (start + 65536 >= s.length ? s.length : -1) : start + nl;
      if (end < 0) {
        // A line longer than the window: it is not empty; look for its end further on.
        n++;
        var more = s.slice(start).search(/\r\n|\n|\r/);
        if (more < 0) break;
        start += more + 1;
        continue;
      }
      if (s.slice(start, end).trim()) n++;
      if (end >= s.length) break;
      start = end + 1;
    }
    return n >= 2;
  }

  function nonEmptyLines(text) {
    var lines = String(text || '').split(/\r?\n|\r/);
    var n = 0;
    for (var i = 0; i < lines.length; i++) if (lines[i].trim()) n++;
    return n;
  }

  /* ---------- the search and diagnosis UI ---------- */
  var MAX_LOG_BYTES = 256 * 1024 * 1024;
  /* A paste longer than this is diagnosed without being put into the search box. */
  var BIG_PASTE = 512 * 1024;
  var SAMPLE_NAME = /^[a-z0-9][a-z0-9-]*\.log$/;

  function initSearch() {
    var results = doc.getElementById('search-results');
    var input = doc.getElementById('search-input');
    if (!results || !input) return;
    var form = input.form;
    var status = doc.getElementById('search-status');
    var panel = doc.getElementById('diagnosis');
    var progress = doc.getElementById('diagnosis-progress');
    var progressText = doc.getElementById('diagnosis-progress-text');
    var cancelBtn = doc.getElementById('diagnosis-cancel');
    var fileInput = doc.getElementById('log-file');
    var samples = doc.getElementById('log-samples');
    var dropZone = doc.getElementById('search-form') || form || input;
    var root = rootPath();
    var isSearchPage = results.hasAttribute('data-sync-url');
    var level = results.getAttribute('data-level') === '3' ? 'h3' : 'h2';
    var limit = parseInt(results.getAttribute('data-limit') || '', 10) || (isSearchPage ? 20 : 8);

    var timer = null;
    var searchSeq = 0;
    var diagSeq = 0;
    var items = [];          // result <li>s, in engine order
    var active = -1;
    var lastQuery = null;
    var shownPartial = false;  // the results on screen came from the first-search shard

    function setStatus(msg) { if (status) status.textContent = msg; }

    function updateUrl(q) {
      if (!isSearchPage || !window.history || !history.replaceState) return;
      var url = location.pathname + (q ? '?q=' + encodeURIComponent(q) : '') + location.hash;
      try { history.replaceState(null, '', url); } catch (e) { /* file:// */ }
    }

    function startEngine() { engine.start().catch(noop); }

    /* ----- results ----- */
    function setActive(i) {
      if (active >= 0 && items[active]) items[active].classList.remove('is-active');
      active = i;
      if (active >= 0 && items[active]) {
        var li = items[active];
        li.classList.add('is-active');
        input.setAttribute('aria-activedescendant', li.id);
        if (li.scrollIntoView) li.scrollIntoView({ block: 'nearest' });
        var a = li.querySelector('a');
        announce('Result ' + (active + 1) + ' of ' + items.length + ': ' + (a ? a.textContent : '') +
          '. Press Enter to open.');
      } else {
        input.removeAttribute('aria-activedescendant');
      }
    }

    function clearResults() {
      clear(results);
      items = [];
      active = -1;
      input.removeAttribute('aria-activedescendant');
    }

    function renderHit(hit, i, terms) {
      var li = el('li', 'card result');
      li.id = 'search-hit-' + i;
      if (hit.slug) li.setAttribute('data-slug', String(hit.slug));
      var h = el(level, 'card-title');
      var a = el('a', 'card-link result-link');
      a.setAttribute('href', root + String(hit.url || ''));
      appendMarked(a, hit.title || hit.slug || hit.url, terms);
      h.appendChild(a);
      li.appendChild(h);
      var badges = el('div', 'badges');
      var sev = sevBadge(hit.severity);
      if (sev) badges.appendChild(sev);
      if (hit.category) {
        var c = el('span', 'badge cat');
        c.appendChild(el('span', 'visually-hidden', 'Category: '));
        c.appendChild(doc.createTextNode(String(hit.category)));
        badges.appendChild(c);
      }
      li.appendChild(badges);
      if (hit.matched_signature) {
        var p = el('p', 'result-sig');
        p.appendChild(el('span', 'visually-hidden', 'Matching signature: '));
        var code = el('code');
        appendMarked(code, shorten(hit.matched_signature, 240), terms);
        p.appendChild(code);
        li.appendChild(p);
      }
      return li;
    }

    function renderResults(result, q) {
      clearResults();
      var hits = result && Array.isArray(result.hits) ? result.hits : [];
      var shown = shorten(q, 60);
      if (!hits.length) {
        setStatus('No entry matches \u201c' + shown + '\u201d' +
          (result.partial && !engine.upgradeError ? ' in signatures and titles; the full index is loading.' : '.'));
        return;
      }
      var terms = queryTerms(q);
      var list = el('ol', 'results');
      list.id = 'search-results-list';
      list.setAttribute('aria-label', 'Search results');
      for (var i = 0; i < hits.length; i++) {           // engine order, never re-ranked
        var li = renderHit(hits[i], i, terms);
        items.push(li);
        list.appendChild(li);
      }
      results.appendChild(list);
      input.setAttribute('aria-controls', 'search-results-list');
      var n = hits.length;
      var note = '.';
      if (result.engine === 'fallback') note = ' (simple search: the search module could not be loaded).';
      else if (result.partial && engine.upgradeError) note = ' (signatures and titles only: the full index could not be loaded).';
      else if (result.partial) note = ' (from signatures and titles; the full index is loading).';
      setStatus(plural(n, 'result', 'results') + ' for \u201c' + shown + '\u201d' + note);
    }

    function runSearch(force) {
      clearTimeout(timer);
      var q = input.value;
      if (isMultiLine(q)) return;
      var trimmed = q.trim();
      if (!force && trimmed === lastQuery) return;
      lastQuery = trimmed;
      updateUrl(trimmed ? q : '');
      var seq = ++searchSeq;
      if (!trimmed) {
        clearResults();
        setStatus(results.getAttribute('data-empty') || '');
        return;
      }
      showMode('search');
      if (!engine.ready && !engine.failed) setStatus('Loading the search index\u2026');
      results.setAttribute('aria-busy', 'true');
      searchQuery(trimmed, limit).then(function (result) {
        if (seq !== searchSeq) return;
        results.removeAttribute('aria-busy');
        shownPartial = !!(result && result.partial);
        renderResults(result, trimmed);
      }, function (err) {
        if (seq !== searchSeq) return;
        results.removeAttribute('aria-busy');
        lastQuery = null;
        if (err && err.cancelled) return;
        clearResults();
        setStatus('Search failed: ' + (err && err.message ? err.message : 'unknown error') + '.');
      });
    }

    // Partial results on screen are asked again once the full index has loaded (or failed).
    engine.onUpgrade(function () {
      if (shownPartial && lastQuery) runSearch(true);
    });

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(function () { runSearch(false); }, 60);
    }

    /* ----- modes ----- */
    function showMode(mode) {
      if (mode === 'search') {
        if (panel) panel.hidden = true;
        results.hidden = false;
      } else {
        results.hidden = true;
        if (panel) panel.hidden = false;
      }
    }

    function showProgress(text) {
      if (!progress) return;
      progress.hidden = false;
      if (progressText) progressText.textContent = text;
    }

    function hideProgress() { if (progress) progress.hidden = true; }

    /* ----- diagnosis ----- */
    function logLine(item, cls) {
      var row = el('div', 'log-line' + (cls ? ' ' + cls : ''));
      var ln = el('span', 'log-ln', item && item.line != null ? item.line : '');
      ln.setAttribute('aria-hidden', 'true');
      var text = el('code', 'log-text', item ? item.text : '');
      row.appendChild(ln);
      row.appendChild(text);
      return row;
    }

    function lineMeta(item) {
      var bits = [];
      var r = fmtRanks(item.ranks);
      if (r) bits.push(r);
      if ((item.count | 0) > 1) bits.push('\u00d7' + item.count);
      return bits;
    }

    function renderEvidence(ev) {
      var role = /^[a-z]+$/.test(String(ev.role || '')) ? String(ev.role) : 'context';
      var li = el('li', 'evidence-item role-' + role);
      li.setAttribute('data-line', String(ev.line));
      li.setAttribute('data-role', role);
      var meta = el('div', 'ev-meta');
      meta.appendChild(el('span', 'ev-ln', 'line ' + ev.line));
      meta.appendChild(el('span', 'ev-role role-badge role-badge-' + role, role));
      var r = fmtRanks(ev.ranks);
      if (r) meta.appendChild(el('span', 'ev-ranks', r));
      if ((ev.count | 0) > 1) {
        var c = el('span', 'ev-count', '\u00d7' + ev.count);
        c.setAttribute('title', 'seen ' + ev.count + ' times');
        meta.appendChild(c);
      }
      li.appendChild(meta);
      li.appendChild(logLine(ev, null));
      if (ev.signature) {
        var p = el('p', 'ev-sig');
        p.appendChild(el('span', 'ev-sig-label', 'Matches signature '));
        p.appendChild(el('code', null, ev.signature));
        li.appendChild(p);
      }
      return li;
    }

    function renderEntry(entry) {
      var li = el('li', 'card diag-entry');
      if (entry.slug) li.setAttribute('data-slug', String(entry.slug));
      var h = el('h3', 'card-title');
      var a = el('a', 'diag-entry-link', entry.title || entry.slug || entry.url);
      a.setAttribute('href', root + String(entry.url || ''));
      h.appendChild(a);
      li.appendChild(h);
      var badges = el('div', 'badges');
      var sev = sevBadge(entry.severity);
      if (sev) badges.appendChild(sev);
      if (entry.category) {
        var c = el('span', 'badge cat');
        c.appendChild(el('span', 'visually-hidden', 'Category: '));
        c.appendChild(doc.createTextNode(String(entry.category)));
        badges.appendChild(c);
      }
      li.appendChild(badges);
      var evs = arr(entry.evidence);
      if (evs.length) {
        var ol = el('ol', 'evidence');
        ol.setAttribute('aria-label', 'Evidence from the log');
        for (var i = 0; i < evs.length; i++) ol.appendChild(renderEvidence(evs[i]));
        li.appendChild(ol);
      }
      return li;
    }

    function renderDiagnosis(r, name, ms) {
      if (!panel) return;
      clear(panel);
      showMode('diagnose');
      var head = el('div', 'diag-head');
      var h = el('h2', 'diag-title', 'Diagnosis');
      h.id = 'diagnosis-title';
      head.appendChild(h);
      var src = el('p', 'diag-source');
      src.id = 'diagnosis-source';
      src.appendChild(el('span', 'diag-name', name));
      src.appendChild(doc.createTextNode(' \u00b7 ' + plural(r.lines_read | 0, 'line', 'lines') + ' read, ' +
        plural(r.error_lines | 0, 'error line', 'error lines') + (ms != null ? ' \u00b7 ' + ms + ' ms' : '')));
      head.appendChild(src);
      panel.appendChild(head);

      var msg = el('p', 'diag-message' + (r.diagnosed ? ' is-diagnosed' : ''), r.message || '');
      msg.id = 'diagnosis-message';
      panel.appendChild(msg);

      var ff = r.first_failure;
      if (ff && typeof ff === 'object') {
        var cause = el('div', 'diag-cause');
        cause.id = 'diagnosis-cause';
        var label = el('p', 'diag-cause-label');
        label.appendChild(el('strong', null, 'Likely cause:'));
        var bits = ['line ' + ff.line].concat(lineMeta(ff));
        label.appendChild(doc.createTextNode(' ' + bits.join(', ')));
        cause.appendChild(label);
        cause.appendChild(logLine(ff, 'cause-line'));
        panel.appendChild(cause);
      }

      var entries = arr(r.entries);
      if (entries.length) {
        var eh = el('h3', 'diag-subtitle', entries.length === 1 ? 'The entry that explains it' : 'Entries that explain it, best first');
        eh.id = 'diagnosis-entries-title';
        panel.appendChild(eh);
        var ol = el('ol', 'diag-entries');
        ol.id = 'diagnosis-entries';
        ol.setAttribute('aria-labelledby', 'diagnosis-entries-title');
        for (var i = 0; i < entries.length; i++) ol.appendChild(renderEntry(entries[i]));
        panel.appendChild(ol);
      } else {
        panel.appendChild(el('p', 'diag-none', 'No entry matches the errors in this log.'));
      }

      var coll = arr(r.collateral);
      if (coll.length) {
        var det = el('details', 'collateral');
        det.id = 'diagnosis-collateral';
        var sum = el('summary', 'collateral-summary', 'Collateral errors (follow from the first failure)');
        sum.appendChild(el('span', 'collateral-count', ' ' + coll.length));
        det.appendChild(sum);
        var cl = el('ol', 'collateral-list');
        for (var j = 0; j < coll.length; j++) {
          var c = coll[j] || {};
          var li = el('li', 'collateral-item');
          li.setAttribute('data-line', String(c.line));
          var meta = el('div', 'ev-meta');
          meta.appendChild(el('span', 'ev-ln', 'line ' + c.line));
          var cr = fmtRanks(c.ranks);
          if (cr) meta.appendChild(el('span', 'ev-ranks', cr));
          if ((c.count | 0) > 1) meta.appendChild(el('span', 'ev-count', '\u00d7' + c.count));
          li.appendChild(meta);
          li.appendChild(logLine(c, null));
          cl.appendChild(li);
        }
        det.appendChild(cl);
        panel.appendChild(det);
      }

      var again = el('p', 'diag-again');
      var btn = el('button', 'btn diag-back', 'Back to search');
      btn.type = 'button';
      btn.id = 'diagnosis-back';
      again.appendChild(btn);
      panel.appendChild(again);
    }

    function renderDiagError(name, message) {
      if (!panel) return;
      clear(panel);
      showMode('diagnose');
      var h = el('h2', 'diag-title', 'Diagnosis');
      h.id = 'diagnosis-title';
      panel.appendChild(h);
      var p = el('p', 'diag-message diag-error');
      p.id = 'diagnosis-message';
      p.textContent = 'Could not diagnose ' + name + ': ' + message;
      panel.appendChild(p);
    }

    /* src: a string or a File/Blob. focusPanel: move focus to the answer. */
    function diagnose(src, name, focusPanel) {
      clearTimeout(timer);
      lastQuery = null;
      searchSeq++;
      var seq = ++diagSeq;
      clearResults();
      updateUrl('');
      if (typeof src !== 'string' && src && src.size > MAX_LOG_BYTES) {
        renderDiagError(name, 'the file is ' + fmtBytes(src.size) + '; logs up to ' + fmtBytes(MAX_LOG_BYTES) + ' can be read here.');
        setStatus('The log ' + name + ' is too big to read here.');
        return Promise.resolve(null);
      }
      if (panel) { clear(panel); panel.hidden = true; }
      results.hidden = true;
      var first = typeof src === 'string' ? 'Diagnosing\u2026' : 'Reading ' + fmtBytes(src.size) + '\u2026';
      showProgress(first);
      setStatus(!engine.ready && !engine.failed ? 'Loading the search index\u2026' : first.replace('\u2026', '') + ' ' + name + '\u2026');
      var t0 = Date.now();
      return diagnoseSource(src, function (m) {
        if (seq !== diagSeq) return;
        var text = m.phase === 'reading' ? 'Reading ' + fmtBytes(m.bytes) + '\u2026' : 'Diagnosing\u2026';
        showProgress(text);
        setStatus(text.replace('\u2026', '') + ' ' + name + '\u2026');
      }).then(function (r) {
        if (seq !== diagSeq) return r;
        hideProgress();
        renderDiagnosis(r || {}, name, Date.now() - t0);
        var ne = r && Array.isArray(r.entries) ? r.entries.length : 0;
        setStatus(r && r.diagnosed
          ? 'Diagnosed ' + name + ': ' + plural(ne, 'matching entry', 'matching entries') + '.'
          : 'No known failure found in ' + name + (ne ? ' (' + plural(ne, 'possible entry', 'possible entries') + ').' : '.'));
        if (focusPanel && panel) { try { panel.focus(); } catch (e) { /* ignore */ } }
        return r;
      }, function (err) {
        if (seq !== diagSeq) return null;
        hideProgress();
        if (err && err.cancelled) {
          if (panel) { clear(panel); panel.hidden = true; }
          setStatus('Diagnosis cancelled.');
          return null;
        }
        var m = err && err.message ? err.message : 'unknown error';
        renderDiagError(name, m);
        setStatus('Could not diagnose ' + name + ': ' + m);
        return null;
      });
    }

    function diagnoseFile(file) {
      if (!file) return;
      var name = file.name || 'dropped file';
      if (!file.size) {
        renderDiagError(name, 'the file is empty.');
        setStatus(name + ' is empty.');
        return;
      }
      diagnose(file, name, true);
    }

    function backToSearch() {
      diagSeq++;
      hideProgress();
      if (panel) { clear(panel); panel.hidden = true; }
      results.hidden = false;
      if (isMultiLine(input.value)) input.value = '';
      lastQuery = null;
      setStatus(results.getAttribute('data-empty') || '');
      input.focus();
    }

    /* ----- wiring ----- */
    input.addEventListener('focus', startEngine);
    input.addEventListener('pointerdown', startEngine);
    input.addEventListener('paste', function (ev) {
      startEngine();
      var text = '';
      try { text = ev.clipboardData ? ev.clipboardData.getData('text') : ''; } catch (e) { text = ''; }
      if (text.length > BIG_PASTE && isMultiLine(text)) {
        // A big log never goes into the box (a text box holding megabytes stalls the tab):
        // it goes to the worker as it is.
        ev.preventDefault();
        diagnose(text, 'pasted log', false);
        return;
      }
      if (isMultiLine(text)) {
        // Let the paste land in the box, then read the whole box.
        setTimeout(function () { diagnose(input.value, 'pasted log', false); }, 0);
      }
    });
    input.addEventListener('input', function () {
      var v = input.value;
      if (isMultiLine(v)) {
        clearTimeout(timer);
        searchSeq++;
        lastQuery = null;
        clearResults();
        if (!panel || panel.hidden) setStatus('A log of ' + plural(nonEmptyLines(v), 'line', 'lines') + ': press Enter or Search to diagnose it.');
        return;
      }
      if (panel && !panel.hidden && v.trim()) showMode('search');
      schedule();
    });
    input.addEventListener('keydown', function (ev) {
      if (ev.isComposing || !items.length || input.value.indexOf('\n') >= 0 || results.hidden) return;
      if (ev.key === 'ArrowDown') {
        ev.preventDefault();
        setActive(Math.min(active + 1, items.length - 1));
      } else if (ev.key === 'ArrowUp') {
        if (active < 0) return;
        ev.preventDefault();
        setActive(active - 1);
      } else if (ev.key === 'Escape' && active >= 0) {
        ev.preventDefault();
        ev.stopImmediatePropagation();
        setActive(-1);
      }
    }, true);
    if (form) {
      form.addEventListener('submit', function (ev) {
        var v = input.value;
        if (active >= 0 && items[active] && !isMultiLine(v)) {
          var a = items[active].querySelector('a[href]');
          if (a) { ev.preventDefault(); location.assign(a.href); return; }
        }
        if (isMultiLine(v)) {
          ev.preventDefault();
          diagnose(v, 'pasted log', false);
          return;
        }
        if (isSearchPage) {
          ev.preventDefault();
          runSearch(true);
        } else if (!v.trim()) {
          ev.preventDefault();
          input.focus();
        }
        // Otherwise the home page form goes to search/?q= as usual.
      });
    }

    if (cancelBtn) {
      cancelBtn.addEventListener('click', function () {
        // Also drops a sample that is still being fetched (no engine request yet).
        diagSeq++;
        engine.cancel();   // the worker is recreated on the next request
        hideProgress();
        if (panel) { clear(panel); panel.hidden = true; }
        setStatus('Diagnosis cancelled.');
        input.focus();
      });
    }

    if (panel) {
      panel.addEventListener('click', function (ev) {
        var t = ev.target;
        if (t && t.closest && t.closest('#diagnosis-back')) backToSearch();
      });
    }

    if (fileInput) {
      fileInput.addEventListener('change', function () {
        var f = fileInput.files && fileInput.files[0];
        if (f) diagnoseFile(f);
        try { fileInput.value = ''; } catch (e) { /* ignore */ }
      });
      fileInput.addEventListener('focus', startEngine);
    }

    if (samples) {
      samples.addEventListener('click', function (ev) {
        var btn = ev.target && ev.target.closest ? ev.target.closest('button[data-sample]') : null;
        if (!btn) return;
        var name = btn.getAttribute('data-sample') || '';
        if (!SAMPLE_NAME.test(name)) return;
        startEngine();
        var seq = ++diagSeq;
        showProgress('Fetching ' + name + '\u2026');
        setStatus('Fetching the sample log ' + name + '\u2026');
        fetch(root + 'static/samples/' + name, { credentials: 'same-origin' })
          .then(function (r) {
            if (!r.ok) throw new Error('HTTP ' + r.status);
            return r.text();
          })
          .then(function (text) {
            if (seq !== diagSeq) return;
            diagnose(text, name, true);
          }, function (err) {
            if (seq !== diagSeq) return;
            hideProgress();
            renderDiagError(name, 'could not fetch the sample (' + err.message + ').');
            setStatus('Could not fetch the sample log ' + name + '.');
          });
      });
    }

    /* Drag and drop a log file anywhere on the page. */
    var dragDepth = 0;
    function hasFiles(ev) {
      var dt = ev.dataTransfer;
      if (!dt || !dt.types) return false;
      for (var i = 0; i < dt.types.length; i++) if (dt.types[i] === 'Files') return true;
      return false;
    }
    function dragState(on) {
      if (dropZone) dropZone.classList.toggle('is-dragover', on);
      doc.body.classList.toggle('is-dragging', on);
    }
    doc.addEventListener('dragenter', function (ev) {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      dragDepth++;
      dragState(true);
      startEngine();
    });
    doc.addEventListener('dragover', function (ev) {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      if (ev.dataTransfer) ev.dataTransfer.dropEffect = 'copy';
      dragState(true);
    });
    doc.addEventListener('dragleave', function (ev) {
      if (!hasFiles(ev)) return;
      dragDepth = Math.max(0, dragDepth - 1);
      if (!dragDepth || !ev.relatedTarget) { dragDepth = 0; dragState(false); }
    });
    doc.addEventListener('drop', function (ev) {
      dragDepth = 0;
      dragState(false);
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      var f = ev.dataTransfer.files && ev.dataTransfer.files[0];
      if (f) diagnoseFile(f);
    });

    /* Warm up when the browser has nothing better to do; never during load. */
    function idle() {
      if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(startEngine, { timeout: 5000 });
      else setTimeout(startEngine, 2000);
    }
    // The search page exists to search: start at once there; elsewhere when idle.
    if (isSearchPage) startEngine();
    else if (doc.readyState === 'complete') idle();
    else window.addEventListener('load', idle);

    /* The search page answers ?q= (the OpenSearch template points here). */
    var q0 = '';
    if (isSearchPage) {
      try { q0 = new URLSearchParams(location.search).get('q') || ''; } catch (e) { q0 = ''; }
    }
    if (q0) {
      input.value = q0;
      if (isMultiLine(q0)) diagnose(q0, 'log from the address', false);
      else runSearch(true);
    } else if (isSearchPage) {
      setStatus(results.getAttribute('data-empty') || status && status.textContent || '');
      try { input.focus(); } catch (e) { /* ignore */ }
    }
  }

  function init() {
    safe('copy', initCopy);
    safe('code blocks', initCodeBlocks);
    safe('theme', initTheme);
    safe('nav', initNav);
    safe('keys', initKeys);
    safe('search hook', initHook);
    safe('search', initSearch);
  }

  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', init);
  else init();
})();
