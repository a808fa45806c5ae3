/* errata default theme, part 2 of 7: DEGRADED MODE.

   When the WebAssembly search module cannot run (no Web Workers or WebAssembly in this
   browser, the module or the index cannot be fetched or loaded, the worker crashed before
   it was ready), search falls back to this plain word search over entries.json. It is a
   degraded mode, not a second engine:
     - it ranks by whole words only (letters and digits, two or more): a word of the query
       found in an entry's signatures scores 5, in its title 3, in its tags 2, in its
       summary 1; ties go by title. No phrases, no fuzzy matching, no coverage;
     - it cannot diagnose a log: diagnosis says the search module could not be loaded;
     - the page says so on every result list: "(simple search: the search module could not
       be loaded)" (errata-results.js);
     - it answers in the engine's shape, with `engine: "fallback"` and `coverage: null`,
       so the same results view renders both.
   errata.SearchClient (errata-engine.js) is the only user: it asks this only once the
   engine has failed. */
(function () {
  'use strict';

  var errata = window.errata;
  var toSet = errata.toSet;
  var arr = errata.arr;

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

  /* An entry of entries.json, with the word sets the ranker looks at. */
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

  function score(d, qwords) {
    var s = 0;
    for (var i = 0; i < qwords.length; i++) {
      var w = qwords[i];
      if (d.sig.has(w)) s += 5;
      if (d.title.has(w)) s += 3;
      if (d.tags.has(w)) s += 2;
      if (d.summary.has(w)) s += 1;
    }
    return s;
  }

  /* The signature holding the most words of the query (the first of equals), or null. */
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

  /* The degraded answer, in the engine's own shape, so one renderer serves both. */
  function rank(index, q, limit) {
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

  /* The degraded search of one site. Owns the entries.json index, fetched on the first
     search and kept; a failed fetch is tried again on the next search. */
  function DegradedSearch() {
    this.index = null;   // Promise<prepared entries>, or null
  }

  DegradedSearch.prototype.load = function () {
    var self = this;
    if (!self.index) {
      self.index = fetch(errata.rootPath() + 'entries.json', { credentials: 'same-origin' })
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.json();
        })
        .then(function (data) {
          var entries = data && Array.isArray(data.entries) ? data.entries : [];
          return entries.filter(function (e) { return e && typeof e === 'object'; }).map(prepare);
        });
      self.index.catch(function () { self.index = null; });
    }
    return self.index;
  };

  /* Resolves with the degraded answer to q, at most limit hits. */
  DegradedSearch.prototype.search = function (q, limit) {
    return this.load().then(function (index) { return rank(index, q, limit); },
      function () { throw new Error('could not load the search index'); });
  };

  errata.DegradedSearch = DegradedSearch;
})();
