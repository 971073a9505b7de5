// The reference page's one script: renders, with Redoc, the OpenAPI document of the surface the address names.
/* global document, window, URLSearchParams, Redoc -- a classic script in the browser, after Redoc's bundle */
(function showReference() {
  // Redoc's styles are inserted by script: they carry the page's nonce, since the policy allows no other inline style.
  const nonce = document.currentScript ? document.currentScript.nonce : undefined;
  const tabs = Array.from(document.querySelectorAll('a[data-surface]'));
  const wanted = new URLSearchParams(window.location.search).get('surface');
  const tab = tabs.find((candidate) => candidate.dataset.surface === wanted) || tabs[0];
  tab.setAttribute('aria-current', 'page');
  document.title = `${tab.dataset.title} · ${document.title}`;

  const reference = document.getElementById('reference');
  reference.dataset.document = tab.dataset.document;
  Redoc.init(tab.dataset.document, { nonce, expandResponses: '200,201,202' }, reference, (error) => {
    // Tests and people alike can tell a finished page from one still loading.
    reference.dataset.state = error ? 'failed' : 'ready';
  });
})();
