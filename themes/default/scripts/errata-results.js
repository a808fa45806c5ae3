/* errata default theme, part 5 of 7: the search results view.

   errata.ResultsView owns #search-results: it runs a query (debounced while typing) through
   the search client, renders the hits in the engine's order with the query's words in
   <mark>, keeps the status line, moves the active result with the arrow keys, answers and
   updates the search page's ?q=, and asks again when the full index replaces the
   first-search shard. Made and wired by errata-start.js. */
(function () {
  'use strict';

  var errata = window.errata;
  var el = errata.el;
  var clear = errata.clear;
  var shorten = errata.shorten;
  var plural = errata.plural;
  var toSet = errata.toSet;
  var doc = document;

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

  /* ---------- the view ---------- */
  /* opts: results (#search-results), input (#search-input), status ({set(msg)}), modes
     ({search()}: shows the results, hides the diagnosis), client (errata.SearchClient),
     engine (errata.Engine: ready, failed, upgradeError, onUpgrade), announce, root. */
  function ResultsView(opts) {
    var results = opts.results;
    this.results = results;
    this.input = opts.input;
    this.status = opts.status;
    this.modes = opts.modes;
    this.client = opts.client;
    this.engine = opts.engine;
    this.announce = opts.announce;
    this.root = opts.root;
    this.isSearchPage = results.hasAttribute('data-sync-url');
    this.level = results.getAttribute('data-level') === '3' ? 'h3' : 'h2';
    this.limit = parseInt(results.getAttribute('data-limit') || '', 10) || (this.isSearchPage ? 20 : 8);
    this.timer = null;
    this.seq = 0;
    this.items = [];          // result <li>s, in engine order
    this.active = -1;
    this.lastQuery = null;
    this.shownPartial = false;  // the results on screen came from the first-search shard
  }

  /* Registers the view's listeners: arrow keys on the box, and the upgrade to the full index. */
  ResultsView.prototype.listen = function () {
    var self = this;
    self.input.addEventListener('keydown', function (ev) { self.onKeydown(ev); }, true);
    // Partial results on screen are asked again once the full index has loaded (or failed).
    self.engine.onUpgrade(function () {
      if (self.shownPartial && self.lastQuery) self.run(true);
    });
  };

  /* The search page's ?q= (the OpenSearch template points here), or ''. */
  ResultsView.prototype.addressQuery = function () {
    if (!this.isSearchPage) return '';
    try { return new URLSearchParams(location.search).get('q') || ''; } catch (e) { return ''; }
  };

  ResultsView.prototype.updateUrl = function (q) {
    if (!this.isSearchPage || !window.history || !history.replaceState) return;
    var url = location.pathname + (q ? '?q=' + encodeURIComponent(q) : '') + location.hash;
    try { history.replaceState(null, '', url); } catch (e) { /* file:// */ }
  };

  ResultsView.prototype.emptyText = function () { return this.results.getAttribute('data-empty') || ''; };

  ResultsView.prototype.isHidden = function () { return this.results.hidden; };
  ResultsView.prototype.show = function () { this.results.hidden = false; };
  ResultsView.prototype.hide = function () { this.results.hidden = true; };

  ResultsView.prototype.setActive = function (i) {
    var items = this.items;
    if (this.active >= 0 && items[this.active]) items[this.active].classList.remove('is-active');
    this.active = i;
    if (this.active >= 0 && items[this.active]) {
      var li = items[this.active];
      li.classList.add('is-active');
      this.input.setAttribute('aria-activedescendant', li.id);
      if (li.scrollIntoView) li.scrollIntoView({ block: 'nearest' });
      var a = li.querySelector('a');
      this.announce('Result ' + (this.active + 1) + ' of ' + items.length + ': ' + (a ? a.textContent : '') +
        '. Press Enter to open.');
    } else {
      this.input.removeAttribute('aria-activedescendant');
    }
  };

  /* The address of the active result, or null. */
  ResultsView.prototype.activeHref = function () {
    var li = this.active >= 0 ? this.items[this.active] : null;
    var a = li ? li.querySelector('a[href]') : null;
    return a ? a.href : null;
  };

  ResultsView.prototype.onKeydown = function (ev) {
    var input = this.input;
    if (ev.isComposing || !this.items.length || input.value.indexOf('\n') >= 0 || this.results.hidden) return;
    if (ev.key === 'ArrowDown') {
      ev.preventDefault();
      this.setActive(Math.min(this.active + 1, this.items.length - 1));
    } else if (ev.key === 'ArrowUp') {
      if (this.active < 0) return;
      ev.preventDefault();
      this.setActive(this.active - 1);
    } else if (ev.key === 'Escape' && this.active >= 0) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      this.setActive(-1);
    }
  };

  ResultsView.prototype.clear = function () {
    clear(this.results);
    this.items = [];
    this.active = -1;
    this.input.removeAttribute('aria-activedescendant');
  };

  /* Drops the query in flight and the results on screen (a log is being read instead);
     withUrl: also takes ?q= off the address. */
  ResultsView.prototype.abandon = function (withUrl) {
    clearTimeout(this.timer);
    this.lastQuery = null;
    this.seq++;
    this.clear();
    if (withUrl) this.updateUrl('');
  };

  /* The next query runs even when it is the one already shown. */
  ResultsView.prototype.forget = function () { this.lastQuery = null; };

  ResultsView.prototype.renderHit = function (hit, i, terms) {
    var li = el('li', 'card result');
    li.id = 'search-hit-' + i;
    if (hit.slug) li.setAttribute('data-slug', String(hit.slug));
    var h = el(this.level, 'card-title');
    var a = el('a', 'card-link result-link');
    a.setAttribute('href', this.root + String(hit.url || ''));
    appendMarked(a, hit.title || hit.slug || hit.url, terms);
    h.appendChild(a);
    li.appendChild(h);
    li.appendChild(errata.badges(hit));
    if (hit.matched_signature) {
      var p = el('p', 'result-sig');
      p.appendChild(el('span', 'visually-hidden', 'Matching signature: '));
      var code = el('code');
      appendMarked(code, shorten(hit.matched_signature, 240), terms);
      p.appendChild(code);
      li.appendChild(p);
    }
    return li;
  };

  /* What the status line adds after "N results for “q”": where the answer came from. */
  ResultsView.prototype.sourceNote = function (result) {
    var engine = this.engine;
    if (result.engine === 'fallback') return ' (simple search: the search module could not be loaded).';
    if (result.partial && engine.upgradeError) return ' (signatures and titles only: the full index could not be loaded).';
    if (result.partial) return ' (from signatures and titles; the full index is loading).';
    return '.';
  };

  ResultsView.prototype.render = function (result, q) {
    this.clear();
    var hits = result && Array.isArray(result.hits) ? result.hits : [];
    var shown = shorten(q, 60);
    if (!hits.length) {
      var note = result.engine === 'fallback' ? this.sourceNote(result)
        : result.partial && !this.engine.upgradeError ? ' in signatures and titles; the full index is loading.' : '.';
      this.status.set('No entry matches \u201c' + shown + '\u201d' + note);
      return;
    }
    var terms = queryTerms(q);
    var list = el('ol', 'results');
    list.id = 'search-results-list';
    list.setAttribute('aria-label', 'Search results');
    for (var i = 0; i < hits.length; i++) {           // engine order, never re-ranked
      var li = this.renderHit(hits[i], i, terms);
      this.items.push(li);
      list.appendChild(li);
    }
    this.results.appendChild(list);
    this.input.setAttribute('aria-controls', 'search-results-list');
    this.status.set(plural(hits.length, 'result', 'results') + ' for \u201c' + shown + '\u201d' + this.sourceNote(result));
  };

  /* Searches the box's text (not a log); force: even when it is the query already shown. */
  ResultsView.prototype.run = function (force) {
    var self = this;
    clearTimeout(self.timer);
    var q = self.input.value;
    if (errata.isMultiLine(q)) return;
    var trimmed = q.trim();
    if (!force && trimmed === self.lastQuery) return;
    self.lastQuery = trimmed;
    self.updateUrl(trimmed ? q : '');
    var seq = ++self.seq;
    if (!trimmed) {
      self.clear();
      self.status.set(self.emptyText());
      return;
    }
    self.modes.search();
    if (!self.engine.ready && !self.engine.failed) self.status.set('Loading the search index\u2026');
    self.results.setAttribute('aria-busy', 'true');
    self.client.search(trimmed, self.limit).then(function (result) {
      if (seq !== self.seq) return;
      self.results.removeAttribute('aria-busy');
      self.shownPartial = !!(result && result.partial);
      self.render(result, trimmed);
    }, function (err) {
      if (seq !== self.seq) return;
      self.results.removeAttribute('aria-busy');
      self.lastQuery = null;
      if (err && err.cancelled) return;
      self.clear();
      self.status.set('Search failed: ' + (err && err.message ? err.message : 'unknown error') + '.');
    });
  };

  /* Runs the box's query after a pause in typing. */
  ResultsView.prototype.schedule = function () {
    var self = this;
    clearTimeout(self.timer);
    self.timer = setTimeout(function () { self.run(false); }, 60);
  };

  errata.ResultsView = ResultsView;
})();
