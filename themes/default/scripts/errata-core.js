/* errata default theme, part 1 of 7: the namespace and the helpers every part uses.

   The theme's scripts are the files of its scripts/ folder, joined in the order of their
   names into static/errata.js when the site is built (one request, one script tag in
   base.html, loaded with `defer`):
     errata-core.js       window.errata and the shared helpers below (no state)
     errata-degraded.js   DEGRADED MODE: the plain word search over entries.json used when
                          the WebAssembly module cannot run (errata.DegradedSearch)
     errata-diagnosis.js  the log-diagnosis view (errata.DiagnosisView)
     errata-engine.js     the client of static/search-worker.js, the search client that picks
                          the engine or the degraded mode, and the tests' hook
                          window.errataSearch (errata.Engine, errata.SearchClient,
                          errata.installHook)
     errata-results.js    the search results view (errata.ResultsView)
     errata-site.js       the site's small behaviours: theme toggle, copy buttons, "/" key,
                          announcements (errata.announce, errata.initSite)
     errata-start.js      starts everything: builds the parts and wires the search box
   Each file only defines things on window.errata, using only this file's helpers at its
   top level; errata-start.js runs them. No framework; the join is the only build step;
   ES2019. Data-derived text only ever goes through textContent / setAttribute, never
   innerHTML. */
(function () {
  'use strict';

  var doc = document;

  /* The relative path from this page to the site root ("./", "../", ...). */
  function rootPath() {
    var r = doc.body ? doc.body.getAttribute('data-root') : null;
    if (!r) return './';
    return r.charAt(r.length - 1) === '/' ? r : r + '/';
  }

  /* Runs fn; a failure is logged and does not stop the other parts. */
  function safe(name, fn) {
    try { fn(); } catch (e) {
      if (window.console && console.warn) console.warn('errata: ' + name + ' failed', e);
    }
  }

  function noop() { /* nothing */ }

  function deferred() {
    var d = {};
    d.promise = new Promise(function (res, rej) { d.resolve = res; d.reject = rej; });
    return d;
  }

  function toSet(list) {
    var set = new Set();
    for (var i = 0; i < list.length; i++) set.add(list[i]);
    return set;
  }

  function arr(v) { return Array.isArray(v) ? v : []; }

  function shorten(s, n) {
    s = String(s).replace(/\s+/g, ' ').trim();
    return s.length > n ? s.slice(0, n - 1) + '\u2026' : s;
  }

  /* An element with a class and text content (text only, never markup). */
  function el(tag, cls, text) {
    var n = doc.createElement(tag);
    if (cls) n.className = cls;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }

  function clear(node) { while (node && node.firstChild) node.removeChild(node.firstChild); }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

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

  function sevBadge(sev) {
    sev = String(sev || '').toLowerCase();
    if (!/^[a-z]+$/.test(sev)) return null;
    /* The same one span as a page's badge: style.css gives it its dot and "Severity: ". */
    return el('span', 'sev-' + sev, sev);
  }

  /* The severity and category badges of a search hit or a diagnosed entry. */
  function badges(item) {
    var box = el('div', 'badges');
    var sev = sevBadge(item.severity);
    if (sev) box.appendChild(sev);
    if (item.category) {
      box.appendChild(el('span', 'badge cat', item.category));
    }
    return box;
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

  window.errata = {
    rootPath: rootPath,
    safe: safe,
    noop: noop,
    deferred: deferred,
    toSet: toSet,
    arr: arr,
    shorten: shorten,
    el: el,
    clear: clear,
    plural: plural,
    fmtBytes: fmtBytes,
    fmtRanks: fmtRanks,
    badges: badges,
    isMultiLine: isMultiLine,
    nonEmptyLines: nonEmptyLines
  };
})();
