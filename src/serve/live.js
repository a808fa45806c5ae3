/* errata serve: the page side of live reload. Reloads on `reload`, shows an overlay on
   `problems` (the build failed; the last good site is still served), built with DOM text
   nodes only, so problem text is never parsed as HTML. Served at /__errata/live.js. */
(function () {
  'use strict';
  var overlay = null;
  function hide() { if (overlay) { overlay.remove(); overlay = null; } }
  function show(problems) {
    hide();
    overlay = document.createElement('div');
    overlay.id = 'errata-overlay';
    overlay.setAttribute('role', 'alertdialog');
    overlay.setAttribute('aria-label', 'Build failed');
    var s = overlay.style;
    s.position = 'fixed'; s.inset = '0'; s.zIndex = '2147483647'; s.overflow = 'auto';
    s.background = 'rgba(20,20,24,0.94)'; s.color = '#f5f5f5'; s.padding = '2rem';
    s.font = '14px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace';
    var h = document.createElement('h2');
    h.textContent = 'errata: the build failed; the last good site is still served';
    h.style.color = '#ff8080'; h.style.font = 'bold 18px system-ui, sans-serif';
    overlay.appendChild(h);
    problems.forEach(function (p) {
      var pre = document.createElement('pre');
      pre.className = 'errata-problem';
      pre.dataset.file = p.file; pre.dataset.line = String(p.line);
      // Set every colour: the theme's own `pre` style must not make the text unreadable.
      var ps = pre.style;
      ps.whiteSpace = 'pre-wrap'; ps.background = '#101014'; ps.color = '#f5f5f5';
      ps.border = '1px solid #555'; ps.borderRadius = '6px'; ps.padding = '1rem'; ps.margin = '1rem 0';
      ps.font = 'inherit'; ps.boxShadow = 'none';
      pre.textContent = p.text;
      overlay.appendChild(pre);
    });
    document.body.appendChild(overlay);
  }
  var wasBroken = false;
  var es = new EventSource('/__errata/events');
  // Lets tests (and curious authors) see that the page is listening.
  es.addEventListener('open', function () { document.documentElement.setAttribute('data-errata-live', 'open'); });
  es.addEventListener('reload', function () { location.reload(); });
  es.addEventListener('ok', function () { if (wasBroken) { location.reload(); } hide(); });
  es.addEventListener('problems', function (ev) {
    wasBroken = true;
    try { show(JSON.parse(ev.data)); } catch (e) { show([{ text: String(ev.data), file: '', line: 0 }]); }
  });
})();
