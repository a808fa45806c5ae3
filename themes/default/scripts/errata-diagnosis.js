/* errata default theme, part 3 of 7: the log-diagnosis view.

   errata.DiagnosisView owns #diagnosis and the progress line: it takes a log from a paste
   into the search box, a dropped file, the file input or a sample button, sends it to the
   engine (never to the DEGRADED MODE, which cannot diagnose), shows the progress and the
   Cancel button, and renders the diagnosis or why there is none. Made and wired by
   errata-start.js. */
(function () {
  'use strict';

  var errata = window.errata;
  var el = errata.el;
  var clear = errata.clear;
  var arr = errata.arr;
  var plural = errata.plural;
  var fmtBytes = errata.fmtBytes;
  var fmtRanks = errata.fmtRanks;
  var isMultiLine = errata.isMultiLine;
  var doc = document;

  var MAX_LOG_BYTES = 256 * 1024 * 1024;
  /* A paste longer than this is diagnosed without being put into the search box. */
  var BIG_PASTE = 512 * 1024;
  var SAMPLE_NAME = /^[a-z0-9][a-z0-9-]*\.log$/;

  /* ---------- rendering a diagnosis (the engine's JSON; text only) ---------- */
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
      var how = ev.partial ? 'Shares words with signature '
        : ev.whole ? 'Matches signature ' : 'Matches part of signature ';
      p.appendChild(el('span', 'ev-sig-label', how));
      p.appendChild(el('code', null, ev.signature));
      li.appendChild(p);
    }
    return li;
  }

  function renderEntry(entry, root) {
    var li = el('li', 'card diag-entry');
    if (entry.slug) li.setAttribute('data-slug', String(entry.slug));
    var h = el('h3', 'card-title');
    var a = el('a', 'diag-entry-link', entry.title || entry.slug || entry.url);
    a.setAttribute('href', root + String(entry.url || ''));
    h.appendChild(a);
    li.appendChild(h);
    li.appendChild(errata.badges(entry));
    var reasons = arr(entry.reasons);
    for (var r = 0; r < reasons.length; r++) {
      var against = entry.ruled_out || entry.doubted;
      var why = el('p', 'diag-reason' + (against ? ' is-ruled-out' : ''));
      why.appendChild(el('strong', null,
        entry.ruled_out ? 'Ruled out: ' : entry.doubted ? 'Unlikely: ' : 'Reasoning: '));
      why.appendChild(doc.createTextNode(String(reasons[r])));
      li.appendChild(why);
    }
    var cues = arr(entry.cues);
    if (cues.length) {
      var cl = el('ul', 'diag-cues');
      cl.setAttribute('aria-label', 'Cues found in the log');
      for (var c = 0; c < cues.length; c++) {
        var cue = cues[c] || {};
        var item = el('li', 'diag-cue');
        if (cue.kind === 'raised-in') {
          item.appendChild(doc.createTextNode('Line ' + cue.line + ' was raised in '));
          item.appendChild(el('code', null, String(cue.cue || '')));
          item.appendChild(doc.createTextNode(", which raises this entry's signature"));
        } else {
          item.appendChild(el('code', null, String(cue.cue || '')));
          item.appendChild(doc.createTextNode((cue.kind === 'frame' ? ' in a traceback frame' : ' in the log') + ', line ' + cue.line));
        }
        cl.appendChild(item);
      }
      li.appendChild(cl);
    }
    var evs = arr(entry.evidence);
    if (evs.length) {
      var ol = el('ol', 'evidence');
      ol.setAttribute('aria-label', 'Evidence from the log');
      for (var i = 0; i < evs.length; i++) ol.appendChild(renderEvidence(evs[i]));
      li.appendChild(ol);
    }
    return li;
  }

  function renderHead(r, name, ms) {
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
    return head;
  }

  /* The first failure ("Likely cause"; "First error" when no entry explains the log), or null. */
  function renderCause(ff, outcome) {
    if (!ff || typeof ff !== 'object') return null;
    var cause = el('div', 'diag-cause');
    cause.id = 'diagnosis-cause';
    var label = el('p', 'diag-cause-label');
    label.appendChild(el('strong', null, outcome === 'none' ? 'First error:' : 'Likely cause:'));
    var bits = ['line ' + ff.line].concat(lineMeta(ff));
    label.appendChild(doc.createTextNode(' ' + bits.join(', ')));
    cause.appendChild(label);
    cause.appendChild(logLine(ff, 'cause-line'));
    return cause;
  }

  function appendEntries(panel, entries, root, outcome, ff) {
    if (!entries.length) {
      var none = el('p', 'diag-none', 'No entry explains this log. ');
      if (ff && typeof ff.text === 'string' && ff.text) {
        var a = el('a', 'diag-search-line', 'Search the encyclopedia for this error');
        a.href = root + 'search/?q=' + encodeURIComponent(ff.text);
        none.appendChild(a);
      }
      panel.appendChild(none);
      return;
    }
    var title = outcome === 'possible' ? 'Possible entries, best first (no diagnosis)'
      : entries.length === 1 ? 'The entry that explains it' : 'Entries that explain it, best first';
    var eh = el('h3', 'diag-subtitle', title);
    eh.id = 'diagnosis-entries-title';
    panel.appendChild(eh);
    var ol = el('ol', 'diag-entries');
    ol.id = 'diagnosis-entries';
    ol.setAttribute('aria-labelledby', 'diagnosis-entries-title');
    for (var i = 0; i < entries.length; i++) ol.appendChild(renderEntry(entries[i], root));
    panel.appendChild(ol);
  }

  function renderCollateralItem(c) {
    var li = el('li', 'collateral-item');
    li.setAttribute('data-line', String(c.line));
    var meta = el('div', 'ev-meta');
    meta.appendChild(el('span', 'ev-ln', 'line ' + c.line));
    var cr = fmtRanks(c.ranks);
    if (cr) meta.appendChild(el('span', 'ev-ranks', cr));
    if ((c.count | 0) > 1) meta.appendChild(el('span', 'ev-count', '\u00d7' + c.count));
    li.appendChild(meta);
    li.appendChild(logLine(c, null));
    return li;
  }

  /* The errors that follow from the first failure, folded; or null when there are none. */
  function renderCollateral(coll) {
    if (!coll.length) return null;
    var det = el('details', 'collateral');
    det.id = 'diagnosis-collateral';
    var sum = el('summary', 'collateral-summary', 'Collateral errors (follow from the first failure)');
    sum.appendChild(el('span', 'collateral-count', ' ' + coll.length));
    det.appendChild(sum);
    var cl = el('ol', 'collateral-list');
    for (var j = 0; j < coll.length; j++) cl.appendChild(renderCollateralItem(coll[j] || {}));
    det.appendChild(cl);
    return det;
  }

  function renderBack() {
    var again = el('p', 'diag-again');
    var btn = el('button', 'btn diag-back', 'Back to search');
    btn.type = 'button';
    btn.id = 'diagnosis-back';
    again.appendChild(btn);
    return again;
  }

  /* ---------- the view ---------- */
  /* opts: panel (#diagnosis), progress, progressText, cancelBtn, fileInput, samples,
     dropZone, input (#search-input), status ({set(msg)}), modes ({diagnose()}: shows the
     panel, hides the results), results (errata.ResultsView: abandon, forget, show,
     emptyText), client (errata.SearchClient), engine (errata.Engine: ready, failed, cancel,
     start), root. */
  function DiagnosisView(opts) {
    this.panel = opts.panel;
    this.progress = opts.progress;
    this.progressText = opts.progressText;
    this.cancelBtn = opts.cancelBtn;
    this.fileInput = opts.fileInput;
    this.samples = opts.samples;
    this.dropZone = opts.dropZone;
    this.input = opts.input;
    this.status = opts.status;
    this.modes = opts.modes;
    this.results = opts.results;
    this.client = opts.client;
    this.engine = opts.engine;
    this.root = opts.root;
    this.seq = 0;         // the diagnosis whose answer is awaited; older answers are dropped
    this.dragDepth = 0;
  }

  DiagnosisView.prototype.startEngine = function () { this.engine.start().catch(errata.noop); };

  DiagnosisView.prototype.isShown = function () { return !!this.panel && !this.panel.hidden; };

  /* Empties and hides the panel. */
  DiagnosisView.prototype.close = function () {
    if (this.panel) { clear(this.panel); this.panel.hidden = true; }
  };

  DiagnosisView.prototype.showProgress = function (text) {
    if (!this.progress) return;
    this.progress.hidden = false;
    if (this.progressText) this.progressText.textContent = text;
  };

  DiagnosisView.prototype.hideProgress = function () { if (this.progress) this.progress.hidden = true; };

  DiagnosisView.prototype.render = function (r, name, ms) {
    var panel = this.panel;
    if (!panel) return;
    clear(panel);
    this.modes.diagnose();
    panel.appendChild(renderHead(r, name, ms));
    var msg = el('p', 'diag-message' + (r.diagnosed ? ' is-diagnosed' : ''), r.message || '');
    msg.id = 'diagnosis-message';
    panel.appendChild(msg);
    var cause = renderCause(r.first_failure, r.outcome);
    if (cause) panel.appendChild(cause);
    appendEntries(panel, arr(r.entries), this.root, r.outcome, r.first_failure);
    var coll = renderCollateral(arr(r.collateral));
    if (coll) panel.appendChild(coll);
    panel.appendChild(renderBack());
  };

  DiagnosisView.prototype.renderError = function (name, message) {
    var panel = this.panel;
    if (!panel) return;
    clear(panel);
    this.modes.diagnose();
    var h = el('h2', 'diag-title', 'Diagnosis');
    h.id = 'diagnosis-title';
    panel.appendChild(h);
    var p = el('p', 'diag-message diag-error');
    p.id = 'diagnosis-message';
    p.textContent = 'Could not diagnose ' + name + ': ' + message;
    panel.appendChild(p);
  };

  /* src: a string or a File/Blob. focusPanel: move focus to the answer. Resolves with the
     engine's answer, or null (too big, cancelled, failed, or overtaken by a newer one). */
  DiagnosisView.prototype.run = function (src, name, focusPanel) {
    var self = this;
    self.results.abandon(true);
    var seq = ++self.seq;
    if (typeof src !== 'string' && src && src.size > MAX_LOG_BYTES) {
      self.renderError(name, 'the file is ' + fmtBytes(src.size) + '; logs up to ' + fmtBytes(MAX_LOG_BYTES) + ' can be read here.');
      self.status.set('The log ' + name + ' is too big to read here.');
      return Promise.resolve(null);
    }
    self.close();
    self.results.hide();
    var first = typeof src === 'string' ? 'Diagnosing\u2026' : 'Reading ' + fmtBytes(src.size) + '\u2026';
    self.showProgress(first);
    self.status.set(!self.engine.ready && !self.engine.failed ? 'Loading the search index\u2026' : first.replace('\u2026', '') + ' ' + name + '\u2026');
    var t0 = Date.now();
    return self.client.diagnose(src, function (m) {
      if (seq !== self.seq) return;
      var text = m.phase === 'reading' ? 'Reading ' + fmtBytes(m.bytes) + '\u2026' : 'Diagnosing\u2026';
      self.showProgress(text);
      self.status.set(text.replace('\u2026', '') + ' ' + name + '\u2026');
    }).then(function (r) {
      if (seq !== self.seq) return r;
      self.done(r, name, Date.now() - t0, focusPanel);
      return r;
    }, function (err) {
      if (seq !== self.seq) return null;
      self.failed(err, name);
      return null;
    });
  };

  DiagnosisView.prototype.done = function (r, name, ms, focusPanel) {
    this.hideProgress();
    this.render(r || {}, name, ms);
    var ne = r && Array.isArray(r.entries) ? r.entries.length : 0;
    var outcome = r && r.outcome ? r.outcome : (r && r.diagnosed ? 'diagnosis' : (ne ? 'possible' : 'none'));
    this.status.set(outcome === 'diagnosis'
      ? 'Diagnosed ' + name + ': ' + plural(ne, 'matching entry', 'matching entries') + '.'
      : outcome === 'possible'
        ? 'No diagnosis for ' + name + ': ' + plural(ne, 'possible entry', 'possible entries') + ', no claim.'
        : 'No entry explains ' + name + '.');
    if (focusPanel && this.panel) { try { this.panel.focus(); } catch (e) { /* ignore */ } }
  };

  DiagnosisView.prototype.failed = function (err, name) {
    this.hideProgress();
    if (err && err.cancelled) {
      this.close();
      this.status.set('Diagnosis cancelled.');
      return;
    }
    var m = err && err.message ? err.message : 'unknown error';
    this.renderError(name, m);
    this.status.set('Could not diagnose ' + name + ': ' + m);
  };

  DiagnosisView.prototype.runFile = function (file) {
    if (!file) return;
    var name = file.name || 'dropped file';
    if (!file.size) {
      this.renderError(name, 'the file is empty.');
      this.status.set(name + ' is empty.');
      return;
    }
    this.run(file, name, true);
  };

  /* "Back to search": drops the diagnosis, and a log left in the box. */
  DiagnosisView.prototype.back = function () {
    this.seq++;
    this.hideProgress();
    this.close();
    this.results.show();
    if (isMultiLine(this.input.value)) this.input.value = '';
    this.results.forget();
    this.status.set(this.results.emptyText());
    this.input.focus();
  };

  DiagnosisView.prototype.cancel = function () {
    // Also drops a sample that is still being fetched (no engine request yet).
    this.seq++;
    this.engine.cancel();   // the worker is recreated on the next request
    this.hideProgress();
    this.close();
    this.status.set('Diagnosis cancelled.');
    this.input.focus();
  };

  DiagnosisView.prototype.runSample = function (name) {
    var self = this;
    self.startEngine();
    var seq = ++self.seq;
    self.showProgress('Fetching ' + name + '\u2026');
    self.status.set('Fetching the sample log ' + name + '\u2026');
    fetch(self.root + 'static/samples/' + name, { credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.text();
      })
      .then(function (text) {
        if (seq !== self.seq) return;
        self.run(text, name, true);
      }, function (err) {
        if (seq !== self.seq) return;
        self.hideProgress();
        self.renderError(name, 'could not fetch the sample (' + err.message + ').');
        self.status.set('Could not fetch the sample log ' + name + '.');
      });
  };

  /* A paste into the search box: a log (two non-empty lines) is diagnosed. */
  DiagnosisView.prototype.onPaste = function (ev) {
    var self = this;
    self.startEngine();
    var text = '';
    try { text = ev.clipboardData ? ev.clipboardData.getData('text') : ''; } catch (e) { text = ''; }
    if (text.length > BIG_PASTE && isMultiLine(text)) {
      // A big log never goes into the box (a text box holding megabytes stalls the tab):
      // it goes to the worker as it is.
      ev.preventDefault();
      self.run(text, 'pasted log', false);
      return;
    }
    if (isMultiLine(text)) {
      // Let the paste land in the box, then read the whole box.
      setTimeout(function () { self.run(self.input.value, 'pasted log', false); }, 0);
    }
  };

  /* Registers the view's listeners: paste, Cancel, Back, the file input, the samples. */
  DiagnosisView.prototype.listen = function () {
    var self = this;
    self.input.addEventListener('paste', function (ev) { self.onPaste(ev); });
    if (self.cancelBtn) self.cancelBtn.addEventListener('click', function () { self.cancel(); });
    if (self.panel) {
      self.panel.addEventListener('click', function (ev) {
        var t = ev.target;
        if (t && t.closest && t.closest('#diagnosis-back')) self.back();
      });
    }
    var fileInput = self.fileInput;
    if (fileInput) {
      fileInput.addEventListener('change', function () {
        var f = fileInput.files && fileInput.files[0];
        if (f) self.runFile(f);
        try { fileInput.value = ''; } catch (e) { /* ignore */ }
      });
      fileInput.addEventListener('focus', function () { self.startEngine(); });
    }
    if (self.samples) {
      self.samples.addEventListener('click', function (ev) {
        var btn = ev.target && ev.target.closest ? ev.target.closest('button[data-sample]') : null;
        if (!btn) return;
        var name = btn.getAttribute('data-sample') || '';
        if (!SAMPLE_NAME.test(name)) return;
        self.runSample(name);
      });
    }
    self.listenDrop();
  };

  /* ---------- drag and drop a log file anywhere on the page ---------- */
  function hasFiles(ev) {
    var dt = ev.dataTransfer;
    if (!dt || !dt.types) return false;
    for (var i = 0; i < dt.types.length; i++) if (dt.types[i] === 'Files') return true;
    return false;
  }

  DiagnosisView.prototype.dragState = function (on) {
    if (this.dropZone) this.dropZone.classList.toggle('is-dragover', on);
    doc.body.classList.toggle('is-dragging', on);
  };

  DiagnosisView.prototype.listenDrop = function () {
    var self = this;
    doc.addEventListener('dragenter', function (ev) {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      self.dragDepth++;
      self.dragState(true);
      self.startEngine();
    });
    doc.addEventListener('dragover', function (ev) {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      if (ev.dataTransfer) ev.dataTransfer.dropEffect = 'copy';
      self.dragState(true);
    });
    doc.addEventListener('dragleave', function (ev) {
      if (!hasFiles(ev)) return;
      self.dragDepth = Math.max(0, self.dragDepth - 1);
      if (!self.dragDepth || !ev.relatedTarget) { self.dragDepth = 0; self.dragState(false); }
    });
    doc.addEventListener('drop', function (ev) {
      self.dragDepth = 0;
      self.dragState(false);
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      var f = ev.dataTransfer.files && ev.dataTransfer.files[0];
      if (f) self.runFile(f);
    });
  };

  errata.DiagnosisView = DiagnosisView;
})();
