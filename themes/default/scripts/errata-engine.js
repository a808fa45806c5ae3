/* errata default theme, part 4 of 7: the search engine client.

   errata.Engine      talks to the WebAssembly engine in static/search-worker.js (the message
                      protocol is described at the top of that file): starts the worker,
                      loads the first-search shard then the full index, answers requests,
                      reports errors, the upgrade to the full index, and cancels.
   errata.SearchClient  what the views ask: search (the engine, or the DEGRADED MODE of
                      errata-degraded.js once the engine has failed) and diagnose (the engine
                      only).
   errata.installHook   window.errataSearch, the tests' hook onto the same worker. */
(function () {
  'use strict';

  var errata = window.errata;
  var noop = errata.noop;
  var deferred = errata.deferred;

  var INIT_TIMEOUT_MS = 30000;

  function supported() {
    return typeof window.Worker === 'function' && typeof window.WebAssembly === 'object' &&
      window.WebAssembly !== null && typeof window.WebAssembly.instantiate === 'function';
  }

  function cancelledError() {
    var err = new Error('cancelled');
    err.cancelled = true;
    return err;
  }

  /* The engine of one page. Public, read-only outside: failed (the Error that stopped it for
     good, or null), ready, loadMs, partial (the loaded index is the first-search shard),
     upgradeError (the full index could not be loaded), firstReady (settles when the first
     index is loaded) and fullReady (when the full index has replaced the first-search shard;
     at once without one). */
  function Engine() {
    this.failed = null;
    this.ready = false;
    this.loadMs = null;
    this.partial = false;
    this.upgradeError = null;
    this._first = deferred();
    this._first.promise.catch(noop);
    this._whole = deferred();
    this._whole.promise.catch(noop);
    this.firstReady = this._first.promise;
    this.fullReady = this._whole.promise;
    this._worker = null;
    this._readyP = null;
    this._pending = Object.create(null);
    this._nextId = 1;
    this._upgradeListeners = [];
  }

  Engine.prototype._fail = function (err) {
    if (!this.failed) { this.failed = err; this._first.reject(err); }
  };

  Engine.prototype._rejectAll = function (err) {
    var pending = this._pending;
    var ids = Object.keys(pending);
    for (var i = 0; i < ids.length; i++) {
      var p = pending[ids[i]];
      delete pending[ids[i]];
      p.reject(err);
    }
  };

  Engine.prototype._kill = function () {
    var worker = this._worker;
    if (worker) {
      worker.onmessage = null;
      worker.onerror = null;
      worker.onmessageerror = null;
      try { worker.terminate(); } catch (e) { /* ignore */ }
    }
    this._worker = null;
    this._readyP = null;
    this.ready = false;
  };

  Engine.prototype._send = function (msg, onProgress) {
    if (!this._worker) return Promise.reject(new Error('the search worker is not running'));
    var pending = this._pending;
    var id = this._nextId++;
    msg.id = id;
    var w = this._worker;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject, progress: onProgress || null };
      try { w.postMessage(msg); } catch (e) { delete pending[id]; reject(e); }
    });
  };

  /* {type: "upgraded"} or {type: "upgrade-failed"}: the full index replaced the shard, or not. */
  Engine.prototype._upgrade = function (m) {
    if (m.type === 'upgraded') { this.partial = false; this.upgradeError = null; this._whole.resolve(); }
    else { this.upgradeError = new Error(m.message || 'the full search index could not be loaded'); this._whole.reject(this.upgradeError); }
    var listeners = this._upgradeListeners;
    for (var i = 0; i < listeners.length; i++) {
      try { listeners[i](); } catch (e) { /* ignore */ }
    }
  };

  Engine.prototype._onMessage = function (ev) {
    var m = ev.data || {};
    var p = m.id !== undefined && m.id !== null ? this._pending[m.id] : null;
    if (m.type === 'upgraded' || m.type === 'upgrade-failed') {
      this._upgrade(m);
      return;
    }
    if (!p) {
      if (m.type === 'error') this._rejectAll(new Error(m.message || 'search worker error'));
      return;
    }
    if (m.type === 'progress') {
      if (p.progress) { try { p.progress(m); } catch (e) { /* ignore */ } }
      return;
    }
    delete this._pending[m.id];
    if (m.type === 'error') p.reject(new Error(m.message || 'search worker error'));
    else p.resolve(m);
  };

  Engine.prototype._attach = function (w) {
    var self = this;
    self._worker = w;
    w.onmessage = function (ev) { self._onMessage(ev); };
    w.onerror = function (ev) {
      if (ev && ev.preventDefault) ev.preventDefault();
      var err = new Error('the search worker failed' + (ev && ev.message ? ': ' + ev.message : ''));
      var wasReady = self.ready;
      self._kill();
      self._rejectAll(err);
      if (!wasReady) self._fail(err);
    };
    w.onmessageerror = function () { self._rejectAll(new Error('could not read the search worker\u2019s answer')); };
  };

  /* Sends init to the new worker w; resolves with its "ready" message. */
  Engine.prototype._init = function (w) {
    var self = this;
    var timer = setTimeout(function () {
      if (self._worker === w && !self.ready) {
        var err = new Error('the search index took too long to load');
        self._kill();
        self._rejectAll(err);
        self._fail(err);
      }
    }, INIT_TIMEOUT_MS);
    var absRoot = new URL(errata.rootPath(), location.href).href;
    return self._send({ type: 'init', root: absRoot }).then(function (m) {
      clearTimeout(timer);
      if (self._worker !== w) throw cancelledError();
      self.ready = true;
      self.loadMs = m.ms;
      self.partial = !!m.partial;
      if (!m.partial) self._whole.resolve();
      self._first.resolve({ ms: m.ms });
      return m;
    }, function (err) {
      clearTimeout(timer);
      if (self._worker === w) self._kill();
      if (!err.cancelled) self._fail(err);
      throw err;
    });
  };

  /* Starts the worker (once; again after a cancel or a crash once it was ready). */
  Engine.prototype.start = function () {
    if (this.failed) return Promise.reject(this.failed);
    if (this._readyP) return this._readyP;
    if (!supported()) {
      this._fail(new Error('this browser has no Web Workers or WebAssembly'));
      return Promise.reject(this.failed);
    }
    var w;
    try {
      w = new Worker(errata.rootPath() + 'static/search-worker.js');
    } catch (e) {
      this._fail(new Error('could not start the search worker: ' + (e && e.message ? e.message : e)));
      return Promise.reject(this.failed);
    }
    this._attach(w);
    var p = this._init(w);
    p.catch(noop);
    this._readyP = p;
    return p;
  };

  /* f() is called when the full index has loaded, or failed to. */
  Engine.prototype.onUpgrade = function (f) { this._upgradeListeners.push(f); };

  /* Resolves with the engine's parsed JSON. */
  Engine.prototype.request = function (msg, onProgress) {
    var self = this;
    return self.start().then(function () { return self._send(msg, onProgress); })
      .then(function (m) { return m.result; });
  };

  /* Stops the worker and what it was doing; the next request starts a new one. */
  Engine.prototype.cancel = function () {
    this._kill();
    this._rejectAll(cancelledError());
  };

  Engine.prototype.busy = function () { return Object.keys(this._pending).length > 0; };

  /* ---------- what the views ask ---------- */
  /* engine: an errata.Engine; degraded: an errata.DegradedSearch. */
  function SearchClient(engine, degraded) {
    this.engine = engine;
    this.degraded = degraded;
  }

  /* Engine search, or the DEGRADED MODE once the module cannot run. */
  SearchClient.prototype.search = function (q, limit) {
    var engine = this.engine;
    var degraded = this.degraded;
    var viaDegraded = function () { return degraded.search(q, limit); };
    if (engine.failed) return viaDegraded();
    return engine.request({ type: 'search', query: q, limit: limit }).catch(function (err) {
      if (!err.cancelled && engine.failed) return viaDegraded();
      throw err;
    });
  };

  /* src: the log's text, or a File/Blob. Only the engine diagnoses; the degraded mode cannot. */
  SearchClient.prototype.diagnose = function (src, onProgress) {
    var engine = this.engine;
    if (engine.failed) {
      return Promise.reject(new Error('log diagnosis needs the search module, which could not be loaded (' +
        engine.failed.message + ')'));
    }
    var msg = { type: 'diagnose' };
    if (typeof src === 'string') msg.text = src; else msg.file = src;
    return engine.request(msg, onProgress);
  };

  /* Test hook: the same worker the page uses. */
  function installHook(client) {
    var engine = client.engine;
    var hook = {
      search: function (query, limit) { return client.search(String(query == null ? '' : query), limit || 10); },
      diagnose: function (text) { return client.diagnose(String(text == null ? '' : text)); }
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

  errata.Engine = Engine;
  errata.SearchClient = SearchClient;
  errata.installHook = installHook;
})();
