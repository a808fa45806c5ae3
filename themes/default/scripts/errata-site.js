/* errata default theme, part 6 of 7: the site's small behaviours, on every page.
   Live announcements (errata.announce, also used by the search views), an entry's table of
   contents, copy buttons and code-block headers, the theme toggle, the current-page state of
   the navigation, the "/" shortcut and Enter in the search box. errata.initSite() starts them (from errata-start.js). */
(function () {
  'use strict';

  var errata = window.errata;
  var el = errata.el;
  var safe = errata.safe;
  var doc = document;
  var html = doc.documentElement;
  var THEME_KEY = 'errata-theme';

  /* ---------- live announcements ---------- */
  /* One polite status region (#a11y-status, made when the page starts, so that it is in the
     page before its first message); a new message replaces the last after 50 ms, so that
     screen readers hear it even when the text is the same. */
  function Announcer() {
    this.timer = null;
  }

  Announcer.prototype.region = function () {
    var region = doc.getElementById('a11y-status');
    if (!region) {
      region = doc.createElement('div');
      region.id = 'a11y-status';
      region.className = 'visually-hidden';
      region.setAttribute('role', 'status');
      region.setAttribute('aria-live', 'polite');
      doc.body.appendChild(region);
    }
    return region;
  };

  Announcer.prototype.say = function (msg) {
    var region = this.region();
    region.textContent = '';
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { region.textContent = msg; }, 50);
  };

  var announcer = new Announcer();
  function announce(msg) { announcer.say(msg); }

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
      var sig = btn.closest('.signature');
      // A signature's button copies the signature, which the page holds once (its own
      // <code>, not one in the origin line under it).
      var sigCode = sig ? sig.querySelector(':scope > code') : null;
      if (sigCode) {
        text = sigCode.textContent;
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

  function copyButton(cls, label) {
    var btn = el('button', cls, 'Copy');
    btn.type = 'button';
    if (label) btn.setAttribute('aria-label', label);
    return btn;
  }

  /* A signature's Copy button: made here, as it copies only with this script running. */
  function initSignatureButtons() {
    var codes = doc.querySelectorAll('.signature > code:first-child');
    for (var i = 0; i < codes.length; i++) {
      var code = codes[i];
      var next = code.nextElementSibling;
      if (next && next.classList.contains('copy')) continue;
      code.parentNode.insertBefore(copyButton('copy', null), next);
    }
  }

  /* ---------- headings' links ---------- */
  /* A "#" link in front of each heading of an entry's text, to link to that part (shown on
     hover): made here rather than held in every page. */
  function initAnchors() {
    var heads = doc.querySelectorAll('.prose :is(h2, h3, h4)[id]');
    for (var i = 0; i < heads.length; i++) {
      var h = heads[i];
      var first = h.firstElementChild;
      if (first && first.classList.contains('anchor')) continue;
      var a = el('a', 'anchor', '#');
      a.href = '#' + h.id;
      a.setAttribute('aria-hidden', 'true');
      a.tabIndex = -1;
      h.insertBefore(a, h.firstChild);
    }
  }

  /* ---------- table of contents ---------- */
  /* An entry page's table of contents, made from its headings (the page holds an empty
     nav.toc): the fields' sections and the body's h2 and h3, in the page's order. The
     affected systems are a short list, not a section to go to. */
  function headingText(h) {
    var text = '';
    for (var n = h.firstChild; n; n = n.nextSibling) {
      if (!(n.classList && n.classList.contains('anchor'))) text += n.textContent;
    }
    return text.trim();
  }

  function initToc() {
    var nav = doc.querySelector('nav.toc');
    if (!nav || nav.firstChild) return;
    var list = el('ol', 'toc-list');
    var heads = doc.querySelectorAll('.entry h2[id], .entry-body h3[id]');
    for (var i = 0; i < heads.length; i++) {
      var h = heads[i];
      if (h.id === 'affects' || nav.contains(h)) continue;
      var li = el('li', h.tagName === 'H3' ? 'toc-l3' : 'toc-l2');
      var a = el('a', null, headingText(h));
      a.href = '#' + h.id;
      li.appendChild(a);
      list.appendChild(li);
    }
    if (!list.firstChild) return;
    var inner = el('div', 'toc-inner');
    var title = el('h2', 'toc-title', 'On this page');
    title.id = 'toc-title';
    inner.appendChild(title);
    inner.appendChild(list);
    nav.appendChild(inner);
  }

  function initCodeBlocks() {
    var pres = doc.querySelectorAll('pre.highlight');
    for (var i = 0; i < pres.length; i++) {
      var pre = pres[i];
      if (pre.parentNode && pre.parentNode.classList && pre.parentNode.classList.contains('code-block')) continue;
      var wrap = el('div', 'code-block');
      var head = el('div', 'code-head');
      var lang = el('span', 'code-lang', pre.getAttribute('data-lang') || '');
      var btn = copyButton('copy copy-code', 'Copy code');
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
  function isTypingTarget(node) {
    if (!node) return false;
    if (node.isContentEditable) return true;
    var tag = (node.tagName || '').toLowerCase();
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

  /* Each behaviour on its own: one that fails leaves the others working. */
  function initSite() {
    safe('announcements', function () { announcer.region(); });
    safe('copy', initCopy);
    safe('toc', initToc);
    safe('anchors', initAnchors);
    safe('signature buttons', initSignatureButtons);
    safe('code blocks', initCodeBlocks);
    safe('theme', initTheme);
    safe('nav', initNav);
    safe('keys', initKeys);
  }

  errata.announce = announce;
  errata.initSite = initSite;
})();
