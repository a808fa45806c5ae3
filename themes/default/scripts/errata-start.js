/* errata default theme, part 7 of 7: starts the page.

   Builds the parts the other scripts define on window.errata and wires the search box,
   which both views share: typing goes to the results view, a log (pasted, or typed over two
   lines and submitted) to the diagnosis view. The parts talk only through what is passed to
   their constructors:
     engine    = new errata.Engine()                          the worker (errata-engine.js)
     client    = new errata.SearchClient(engine, new errata.DegradedSearch())
     errata.installHook(client)                               window.errataSearch
     results   = new errata.ResultsView({..., client, engine, modes, status})
     diagnosis = new errata.DiagnosisView({..., client, engine, modes, status, results})
   `modes` switches between the results and the diagnosis panel; `status` is the shared
   #search-status line. */
(function () {
  'use strict';

  var errata = window.errata;
  var doc = document;

  /* The status line under the box, which both views write. */
  function statusLine(node) {
    return {
      set: function (msg) { if (node) node.textContent = msg; },
      text: function () { return node ? node.textContent : ''; }
    };
  }

  /* Which of the two views is on screen; the views call it, it calls them. */
  function modesOf(views) {
    return {
      search: function () {
        if (views.panel) views.panel.hidden = true;
        views.results.show();
      },
      diagnose: function () {
        views.results.hide();
        if (views.panel) views.panel.hidden = false;
      }
    };
  }

  function makeViews(engine, client, results, input) {
    var status = statusLine(doc.getElementById('search-status'));
    var panel = doc.getElementById('diagnosis');
    var views = { panel: panel, results: null };
    var modes = modesOf(views);
    var root = errata.rootPath();
    views.results = new errata.ResultsView({
      results: results, input: input, status: status, modes: modes, client: client,
      engine: engine, announce: errata.announce, root: root
    });
    var diagnosis = new errata.DiagnosisView({
      panel: panel,
      progress: doc.getElementById('diagnosis-progress'),
      progressText: doc.getElementById('diagnosis-progress-text'),
      cancelBtn: doc.getElementById('diagnosis-cancel'),
      fileInput: doc.getElementById('log-file'),
      samples: doc.getElementById('log-samples'),
      dropZone: doc.getElementById('search-form') || input.form || input,
      input: input, status: status, modes: modes, results: views.results, client: client,
      engine: engine, root: root
    });
    return { results: views.results, diagnosis: diagnosis, modes: modes, status: status };
  }

  /* The box's own events: what was typed decides which view answers. */
  function wireBox(v, input, startEngine) {
    var results = v.results, diagnosis = v.diagnosis;
    input.addEventListener('focus', startEngine);
    input.addEventListener('pointerdown', startEngine);
    input.addEventListener('input', function () {
      var val = input.value;
      if (errata.isMultiLine(val)) {
        results.abandon(false);
        if (!diagnosis.isShown()) v.status.set('A log of ' + errata.plural(errata.nonEmptyLines(val), 'line', 'lines') + ': press Enter or Search to diagnose it.');
        return;
      }
      if (diagnosis.isShown() && val.trim()) v.modes.search();
      results.schedule();
    });
    var form = input.form;
    if (!form) return;
    form.addEventListener('submit', function (ev) {
      var val = input.value;
      var href = errata.isMultiLine(val) ? null : results.activeHref();
      if (href) { ev.preventDefault(); location.assign(href); return; }
      if (errata.isMultiLine(val)) {
        ev.preventDefault();
        diagnosis.run(val, 'pasted log', false);
        return;
      }
      if (results.isSearchPage) {
        ev.preventDefault();
        results.run(true);
      } else if (!val.trim()) {
        ev.preventDefault();
        input.focus();
      }
      // Otherwise the home page form goes to search/?q= as usual.
    });
  }

  /* Warms the engine up, and answers the search page's ?q=. */
  function begin(v, input, startEngine) {
    var results = v.results;
    /* Warm up when the browser has nothing better to do; never during load. */
    function idle() {
      if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(startEngine, { timeout: 5000 });
      else setTimeout(startEngine, 2000);
    }
    // The search page exists to search: start at once there; elsewhere when idle.
    if (results.isSearchPage) startEngine();
    else if (doc.readyState === 'complete') idle();
    else window.addEventListener('load', idle);

    /* The search page answers ?q= (the OpenSearch template points here). */
    var q0 = results.addressQuery();
    if (q0) {
      input.value = q0;
      if (errata.isMultiLine(q0)) v.diagnosis.run(q0, 'log from the address', false);
      else results.run(true);
    } else if (results.isSearchPage) {
      v.status.set(results.emptyText() || v.status.text() || '');
      try { input.focus(); } catch (e) { /* ignore */ }
    }
  }

  /* The search box, its results and the log diagnosis, on pages that have them. */
  function initSearch(engine, client) {
    var results = doc.getElementById('search-results');
    var input = doc.getElementById('search-input');
    if (!results || !input) return;
    var startEngine = function () { engine.start().catch(errata.noop); };
    var v = makeViews(engine, client, results, input);
    wireBox(v, input, startEngine);
    v.results.listen();
    v.diagnosis.listen();
    begin(v, input, startEngine);
  }

  function init() {
    errata.initSite();
    var engine = null, client = null;
    errata.safe('search hook', function () {
      engine = new errata.Engine();
      client = new errata.SearchClient(engine, new errata.DegradedSearch());
      errata.installHook(client);
    });
    errata.safe('search', function () { initSearch(engine, client); });
  }

  if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', init);
  else init();
})();
