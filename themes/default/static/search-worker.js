/* errata search worker: runs the WebAssembly search engine off the main thread.
   Classic worker script, no imports, ES2019.

   page -> worker
     {id, type: "init", root}                 root: absolute URL of the site root
     {id, type: "search", query, limit}
     {id, type: "diagnose", text}             or {id, type: "diagnose", file: Blob}
                                              or {id, type: "diagnose", buffer: ArrayBuffer}
   worker -> page
     {id, type: "ready", ms, partial}
     {id, type: "result", result, ms}         result: the engine's parsed JSON
     {id, type: "progress", phase: "reading" | "diagnosing", bytes}
     {id, type: "error", message}
     {type: "upgraded", ms}                   the full index is loaded (no id)
     {type: "upgrade-failed", message}        it could not be; searches stay partial

   The module and the first-search index's statistics (search/first/meta.json) are fetched
   on the first message. A search then fetches only the small files it names (the postings
   of its words over signatures, titles and tags, then its hits' titles), so the first answer
   needs a fraction of the bytes; its answers say `partial`. The full index
   (search/errata.bundle) is fetched right after and replaces it; diagnosis waits for it. A
   site without the first-search files loads the full index at once. Every failure is
   answered with an error message; nothing is ever left without a reply. */
'use strict';

var engine = null;      // {exports, memory}
var loading = null;     // Promise<engine>: the module with a first index (first-search or full)
var full = null;        // Promise<engine>: the module with the full index
var partial = false;    // the loaded index is the first-search index
var firstBase = null;   // URL of search/first/ while the first-search index is loaded
var loadMs = 0;
var lastRoot = null;    // kept so a crashed engine can be reloaded

function now() {
  return (self.performance && performance.now) ? performance.now() : Date.now();
}

function errText(e) {
  if (!e) return 'unknown error';
  if (typeof e === 'string') return e;
  return e.message || String(e);
}

function post(msg) {
  try { self.postMessage(msg); } catch (e) { /* page gone */ }
}

function fetchBytes(url, what) {
  return fetch(url, { credentials: 'same-origin' }).then(function (r) {
    if (!r.ok) throw new Error('could not fetch the ' + what + ' (HTTP ' + r.status + ')');
    return r.arrayBuffer();
  }, function (e) {
    throw new Error('could not fetch the ' + what + ': ' + errText(e));
  });
}

/* ---------- talking to the module ---------- */
var encoder = new TextEncoder();
var decoder = new TextDecoder('utf-8');

function bytesView(ptr, len) {
  // Re-read memory.buffer every time: it is replaced when the module's memory grows.
  return new Uint8Array(engine.memory.buffer, ptr >>> 0, len >>> 0);
}

function readResult() {
  var x = engine.exports;
  var ptr = x.errata_result_ptr() >>> 0;
  var len = x.errata_result_len() >>> 0;
  if (!len) return '';
  return decoder.decode(bytesView(ptr, len).slice());
}

function parseResult(text, rc) {
  var obj = null;
  try { obj = text ? JSON.parse(text) : null; } catch (e) { obj = null; }
  if (rc !== 0) {
    var m = obj && typeof obj.error === 'string' ? obj.error : ('the search engine failed (code ' + rc + ')');
    throw new Error(m);
  }
  if (!obj || typeof obj !== 'object') throw new Error('the search engine returned no valid JSON');
  if (typeof obj.error === 'string') throw new Error(obj.error);
  return obj;
}

/* Copies bytes into module memory, calls fn(ptr, len), returns the rc.
   keep: do not free the buffer afterwards (used for the bundle). */
function withBytes(bytes, keep, fn) {
  var x = engine.exports;
  var len = bytes.length;
  var size = len > 0 ? len : 1;
  var ptr = x.errata_alloc(size) >>> 0;
  if (!ptr && len) throw new Error('out of memory in the search module');
  if (len) bytesView(ptr, len).set(bytes);
  var rc;
  try {
    rc = fn(ptr, len);
  } finally {
    if (!keep && typeof x.errata_free === 'function') {
      try { x.errata_free(ptr, size); } catch (e) { /* ignore */ }
    }
  }
  return rc | 0;
}

function call(name, bytes, extra) {
  var x = engine.exports;
  var rc = withBytes(bytes, false, function (ptr, len) {
    return extra === undefined ? x[name](ptr, len) : x[name](ptr, len, extra);
  });
  return parseResult(readResult(), rc);
}

var REQUIRED = ['errata_alloc', 'errata_load', 'errata_load_first', 'errata_first_add',
  'errata_search', 'errata_diagnose', 'errata_result_ptr', 'errata_result_len'];

/* Loads bundle bytes into the engine, replacing the index it had. */
function loadBundle(bytes) {
  var x = engine.exports;
  var bundle = new Uint8Array(bytes);
  // errata_load parses the bundle into its own memory, so the input is freed after it.
  var rc;
  try {
    rc = withBytes(bundle, false, function (ptr, len) { return x.errata_load(ptr, len); });
  } catch (e) {
    // A bundle damaged behind a valid checksum can stop the engine (a trap): an error to
    // show, and a fresh engine next time.
    engine = null;
    if (e instanceof WebAssembly.RuntimeError) {
      throw new Error('could not load the search index: it is damaged (the engine stopped: ' + errText(e) + '); rebuild the site');
    }
    throw e;
  }
  if (rc !== 0) {
    var text = '';
    try { text = readResult(); } catch (e) { text = ''; }
    var m = 'could not load the search index (code ' + rc + ')';
    try { var o = JSON.parse(text); if (o && typeof o.error === 'string') m = 'could not load the search index: ' + o.error; } catch (e) { /* keep m */ }
    throw new Error(m);
  }
}

/* The first-search files a search named, fetched side by side and added to the engine.
   kind 0: postings (t/N.bin), 1: entries' titles (d/N.json). */
function addFirst(needs) {
  var wanted = [];
  (needs.terms || []).forEach(function (n) { wanted.push([0, n, 't/' + n + '.bin']); });
  (needs.docs || []).forEach(function (n) { wanted.push([1, n, 'd/' + n + '.json']); });
  var e = engine;
  return Promise.all(wanted.map(function (w) {
    return fetchBytes(new URL(w[2], firstBase).href, 'search index').then(function (buf) {
      return [w[0], w[1], buf];
    });
  })).then(function (files) {
    if (engine !== e) throw new Error('the search engine was restarted');
    if (!partial) return;
    files.forEach(function (f) {
      var rc = withBytes(new Uint8Array(f[2]), false, function (ptr, len) {
        return engine.exports.errata_first_add(f[0], f[1] >>> 0, ptr, len);
      });
      parseResult(readResult(), rc);
    });
  });
}

/* Searches; a first-search answer may first name the files it needs (at most twice: the
   postings, then the titles). A first-search file that cannot be fetched or read is not an
   error to show: the query waits for the full index instead. */
function search(queryBytes, limit, round, settle) {
  var result = call('errata_search', queryBytes, limit);
  if (!result.needs) return Promise.resolve(result);
  if (round >= 3) return Promise.reject(new Error('the search index is incomplete'));
  return addFirst(result.needs).then(function () {
    return search(queryBytes, limit, round + 1, settle);
  }, function () {
    settle();
    return full.then(function () { return call('errata_search', queryBytes, limit); });
  });
}

/* The full index is never loaded while a search is under way: it would change the engine
   under that search. It waits for the search (or for the search to give up on the
   first-search files and wait for it). */
var searching = 0;
var pendingLoad = null;
var fullBroken = null;  // the error the full index's bytes failed to load with

/* Runs the full index's load if it waits and no search is under way. */
function runPendingLoad() {
  if (!searching && pendingLoad) { var load = pendingLoad; pendingLoad = null; load(); }
}

function settleSearch() {
  searching--;
  runPendingLoad();
}

/* The module and the first index: the first-search files if the site has them, else the
   full index. */
function load(root) {
  if (typeof WebAssembly !== 'object' || !WebAssembly.instantiate) {
    return Promise.reject(new Error('this browser has no WebAssembly'));
  }
  var base;
  try { base = new URL(String(root || './'), self.location.href); } catch (e) {
    return Promise.reject(new Error('bad site root: ' + errText(e)));
  }
  var t0 = now();
  var wasmUrl = new URL('static/errata-search.wasm', base).href;
  var fullUrl = new URL('search/errata.bundle', base).href;
  var firstUrl = new URL('search/first/meta.json', base).href;
  // Compile while downloading when the server sends application/wasm; else from the bytes.
  function fromBytes() {
    return fetchBytes(wasmUrl, 'search module').then(function (buf) {
      return WebAssembly.instantiate(buf, {}).catch(function (e) {
        throw new Error('could not start the search module: ' + errText(e));
      });
    });
  }
  var wasmP = typeof WebAssembly.instantiateStreaming === 'function'
    ? WebAssembly.instantiateStreaming(fetch(wasmUrl, { credentials: 'same-origin' }), {}).catch(fromBytes)
    : fromBytes();
  // Only missing first-search files mean "load the full index instead"; any other failure
  // is reported.
  var firstP = fetch(firstUrl, { credentials: 'same-origin' }).then(function (r) {
    if (r.status === 404) return null;
    if (!r.ok) throw new Error('could not fetch the search index (HTTP ' + r.status + ')');
    return r.arrayBuffer();
  }, function (e) {
    throw new Error('could not fetch the search index: ' + errText(e));
  }).then(function (buf) {
    return buf || fetchBytes(fullUrl, 'search index').then(function (b) { return { full: b }; });
  });
  return Promise.all([wasmP, firstP]).then(function (both) {
    var inst = both[0].instance || both[0];
    var x = inst.exports;
    for (var i = 0; i < REQUIRED.length; i++) {
      if (typeof x[REQUIRED[i]] !== 'function') throw new Error('the search module has no ' + REQUIRED[i]);
    }
    if (!(x.memory instanceof WebAssembly.Memory)) throw new Error('the search module exports no memory');
    engine = { exports: x, memory: x.memory };
    var isShard = !both[1].full;
    if (isShard) call('errata_load_first', new Uint8Array(both[1])); else loadBundle(both[1].full);
    partial = isShard;
    firstBase = isShard ? new URL('search/first/', base).href : null;
    loadMs = Math.round(now() - t0);
    var e = engine;
    full = isShard ? upgrade(e, fullUrl) : Promise.resolve(e);
    full.catch(noop);
    return e;
  });
}

function noop() {}

/* Fetches the full index once the requests already queued have been answered, and loads it
   when it arrives and no search is under way (see runPendingLoad). */
function upgrade(e, fullUrl) {
  var t0;
  // A full index that could not be loaded is not fetched again by a restarted engine: a page
  // that asks again after every upgrade message would otherwise restart it without end.
  var done = fullBroken ? Promise.reject(fullBroken) : new Promise(function (resolve) { setTimeout(resolve, 0); }).then(function () {
    t0 = now();
    return fetchBytes(fullUrl, 'full search index');
  }).then(function (bytes) {
    return new Promise(function (resolve, reject) {
      pendingLoad = function () {
        if (engine !== e) { reject(new Error('the search engine was restarted')); return; }
        try {
          loadBundle(bytes);
        } catch (err) {
          // A trap leaves the engine unusable: the next request starts a fresh one.
          if (engine !== e) { loading = null; full = null; }
          fullBroken = err;
          reject(err);
          return;
        }
        partial = false;
        resolve(e);
      };
      runPendingLoad();
    });
  });
  done.then(function () {
    post({ type: 'upgraded', ms: Math.round(now() - t0) });
  }, function (err) {
    post({ type: 'upgrade-failed', message: errText(err) });
  });
  return done;
}

function ensure(root) {
  if (root !== undefined) lastRoot = root;
  if (!loading) {
    root = lastRoot;
    loading = load(root);
    // A failed load may be retried by a later init (e.g. after a network blip).
    loading.catch(function () { loading = null; engine = null; full = null; });
  }
  return loading;
}

/* ---------- log input ---------- */
function readBlob(blob) {
  if (typeof blob.arrayBuffer === 'function') return blob.arrayBuffer();
  if (typeof FileReaderSync === 'function') {
    return Promise.resolve(new FileReaderSync().readAsArrayBuffer(blob));
  }
  return new Promise(function (resolve, reject) {
    var fr = new FileReader();
    fr.onload = function () { resolve(fr.result); };
    fr.onerror = function () { reject(fr.error || new Error('could not read the file')); };
    fr.readAsArrayBuffer(blob);
  });
}

/* Always hands the engine valid UTF-8: bytes are decoded (invalid sequences become
   U+FFFD, a BOM is dropped) and encoded again. */
function logBytes(msg) {
  if (typeof msg.text === 'string') {
    post({ id: msg.id, type: 'progress', phase: 'reading', bytes: msg.text.length });
    return Promise.resolve(encoder.encode(msg.text));
  }
  var src = msg.file || msg.buffer;
  if (!src) return Promise.reject(new Error('no log text was given'));
  var size = src.byteLength !== undefined ? src.byteLength : src.size;
  post({ id: msg.id, type: 'progress', phase: 'reading', bytes: size || 0 });
  var p = (src instanceof ArrayBuffer) ? Promise.resolve(src)
    : ArrayBuffer.isView(src) ? Promise.resolve(src.buffer.slice(src.byteOffset, src.byteOffset + src.byteLength))
    : readBlob(src);
  return p.then(function (buf) {
    return encoder.encode(decoder.decode(new Uint8Array(buf)));
  });
}

/* ---------- messages ---------- */
function handle(msg) {
  var id = msg.id;
  var type = msg.type;
  if (type === 'init') {
    return ensure(msg.root).then(function () {
      post({ id: id, type: 'ready', ms: loadMs, partial: partial });
    });
  }
  if (!loading) {
    if (lastRoot === null) return Promise.reject(new Error('the search worker was not initialised'));
    ensure();
  }
  if (type === 'search') {
    return loading.then(function () {
      var t0 = now();
      var limit = Math.max(1, Math.min(1000, (msg.limit | 0) || 10));
      var settled = false;
      var settle = function () { if (!settled) { settled = true; settleSearch(); } };
      searching++;
      return search(encoder.encode(String(msg.query == null ? '' : msg.query)), limit, 0, settle).then(function (result) {
        settle();
        post({ id: id, type: 'result', result: result, ms: Math.round(now() - t0) });
      }, function (err) { settle(); throw err; });
    });
  }
  if (type === 'diagnose') {
    // Diagnosis ranks by matched signatures, which only the full index carries.
    return loading.then(function () {
      return full || ensure().then(function () { return full; });
    }).then(function () { return logBytes(msg); }).then(function (bytes) {
      post({ id: id, type: 'progress', phase: 'diagnosing', bytes: bytes.length });
      var t0 = now();
      var result = call('errata_diagnose', bytes);
      post({ id: id, type: 'result', result: result, ms: Math.round(now() - t0) });
    });
  }
  return Promise.reject(new Error('unknown request: ' + String(type)));
}

/* Requests run one after another, in the order they came. */
var queue = Promise.resolve();

self.onmessage = function (ev) {
  var msg = ev.data || {};
  queue = queue.then(function () {
    var p;
    try { p = handle(msg); } catch (e) { p = Promise.reject(e); }
    return p.catch(function (e) {
      // A trap (a panic in the engine) may leave its memory inconsistent: reload next time.
      if (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) {
        engine = null;
        loading = null;
        full = null;
      }
      post({ id: msg.id, type: 'error', message: errText(e) });
    });
  });
};

self.onmessageerror = function () {
  post({ id: null, type: 'error', message: 'the search worker could not read a message' });
};
