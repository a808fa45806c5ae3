/* errata default theme: copy buttons, theme toggle, keyboard shortcut, fallback search.
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

  function renderResult(hit, qwords, root) {
    var e = hit.d.e;
    var li = el('li', 'card result');
    var h = el('h2', 'card-title');
    var a = el('a', 'card-link', e.title || e.slug || e.url);
    a.setAttribute('href', root + String(e.url || ''));
    h.appendChild(a);
    li.appendChild(h);

    var badges = el('div', 'badges');
    if (e.category_title) badges.appendChild(el('span', 'badge cat', e.category_title));
    var sev = String(e.severity || '').toLowerCase();
    if (/^[a-z]+$/.test(sev)) {
      var b = el('span', 'badge sev sev-' + sev);
      b.appendChild(el('span', 'visually-hidden', 'Severity: '));
      b.appendChild(doc.createTextNode(sev));
      badges.appendChild(b);
    }
    if (e.kind === 'guide') badges.appendChild(el('span', 'badge guide', 'Guide'));
    li.appendChild(badges);

    if (e.summary) li.appendChild(el('p', 'card-summary', shorten(e.summary, 260)));
    var sig = bestSignature(hit.d, qwords);
    if (sig) {
      var p = el('p', 'result-sig');
      p.appendChild(el('span', 'visually-hidden', 'Matching signature: '));
      p.appendChild(el('code', null, shorten(sig, 200)));
      li.appendChild(p);
    }
    return li;
  }

  function initSearch() {
    var results = doc.getElementById('search-results');
    if (!results) return;
    var status = doc.getElementById('search-status');
    var input = doc.getElementById('search-input');
    var form = input ? input.form : null;
    var root = rootPath();
    var index = null;      // prepared entries
    var loadError = false;
    var timer = null;

    function setStatus(msg) { if (status) status.textContent = msg; }

    function updateUrl(q) {
      if (!window.history || !history.replaceState) return;
      var url = location.pathname + (q ? '?q=' + encodeURIComponent(q) : '') + location.hash;
      try { history.replaceState(null, '', url); } catch (e) { /* file:// */ }
    }

    function run() {
      var q = input ? input.value : '';
      updateUrl(q.trim() ? q : '');
      while (results.firstChild) results.removeChild(results.firstChild);
      if (loadError) { setStatus('Could not load the search index (entries.json).'); return; }
      if (!index) { setStatus('Loading the search index\u2026'); return; }
      var qwords = uniqueWords(q);
      if (!qwords.length) {
        setStatus('Type or paste an error message to search ' + index.length + ' entries.');
        return;
      }
      var hits = [];
      for (var i = 0; i < index.length; i++) {
        var s = score(index[i], qwords);
        if (s > 0) hits.push({ d: index[i], s: s });
      }
      hits.sort(function (x, y) {
        return y.s - x.s || String(x.d.e.title || '').localeCompare(String(y.d.e.title || ''));
      });
      var shown = shorten(q, 60);
      if (!hits.length) {
        setStatus('No entry matches \u201c' + shown + '\u201d.');
        return;
      }
      var top = hits.slice(0, 20);
      var list = el('ol', 'results');
      for (var j = 0; j < top.length; j++) list.appendChild(renderResult(top[j], qwords, root));
      results.appendChild(list);
      var n = hits.length;
      setStatus(n + (n === 1 ? ' result' : ' results') + ' for \u201c' + shown + '\u201d' +
        (n > top.length ? ' (showing the top ' + top.length + ')' : '') + '.');
    }

    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(run, 150);
    }

    var q0 = '';
    try { q0 = new URLSearchParams(location.search).get('q') || ''; } catch (e) { q0 = ''; }
    if (input) {
      input.value = q0;
      input.addEventListener('input', schedule);
      if (!q0) { try { input.focus(); } catch (e) { /* ignore */ } }
    }
    if (form) {
      form.addEventListener('submit', function (ev) {
        ev.preventDefault();
        clearTimeout(timer);
        run();
      });
    }

    results.setAttribute('aria-busy', 'true');
    setStatus('Loading the search index\u2026');
    fetch(root + 'entries.json', { credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      })
      .then(function (data) {
        var entries = data && Array.isArray(data.entries) ? data.entries : [];
        index = entries.filter(function (e) { return e && typeof e === 'object'; }).map(prepare);
      })
      .catch(function () { loadError = true; })
      .then(function () {
        results.removeAttribute('aria-busy');
        run();
      });
  }

  function init() {
    safe('copy', initCopy);
    safe('code blocks', initCodeBlocks);
    safe('theme', initTheme);
    safe('nav', initNav);
    safe('keys', initKeys);
    safe('search', initSearch);
  }

  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', init);
  else init();
})();
