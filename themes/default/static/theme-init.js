/* errata: set the colour theme before first paint (loaded in <head>, not deferred). */
(function () {
  var d = document.documentElement;
  var t = null;
  try { t = window.localStorage.getItem('errata-theme'); } catch (e) { t = null; }
  if (t !== 'light' && t !== 'dark') {
    try {
      t = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
    } catch (e) { t = 'light'; }
  }
  d.dataset.theme = t;
  d.classList.add('js');
})();
