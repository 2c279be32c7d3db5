// mnemo console: loads each view's fragment with the key kept in this
// tab's sessionStorage (sent as a header, never in a URL), draws the
// neighbourhood graph. No inline script anywhere: the page's
// Content-Security-Policy allows only this file and the vendored ones.
(function () {
  'use strict';
  var KEY = 'mnemo.key';

  function key() {
    try { return sessionStorage.getItem(KEY) || ''; } catch (e) { return ''; }
  }
  function setKey(k) {
    try { if (k) { sessionStorage.setItem(KEY, k); } else { sessionStorage.removeItem(KEY); } } catch (e) { /* storage off: key lives until reload */ }
  }
  function headers() {
    var h = { 'X-Mnemo-Console': '1' };
    var k = key();
    if (k) { h.Authorization = 'Bearer ' + k; }
    return h;
  }

  function byId(id) { return document.getElementById(id); }

  function loadView() {
    var view = byId('view');
    if (!view) { return; }
    byId('login').hidden = true;
    view.hidden = false;
    htmx.ajax('GET', view.dataset.src, { target: '#view', swap: 'innerHTML' });
  }

  function showLogin(refused) {
    var login = byId('login');
    byId('view').hidden = true;
    login.hidden = false;
    var err = byId('login-error');
    if (refused) {
      err.textContent = 'That key was refused (unknown, revoked or expired).';
      err.hidden = false;
    }
    byId('key').focus();
  }

  document.addEventListener('htmx:configRequest', function (evt) {
    var h = headers();
    for (var name in h) { evt.detail.headers[name] = h[name]; }
  });

  document.addEventListener('htmx:beforeSwap', function (evt) {
    var status = evt.detail.xhr.status;
    if (status === 401) {
      evt.detail.shouldSwap = false;
      evt.detail.isError = false;
      var refused = key() !== '';
      setKey('');
      showLogin(refused);
    } else if (status >= 400) {
      // The console answers errors with a fragment saying what went wrong.
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });

  // #view is aria-busy while any of the page's requests runs (the view
  // and the fragments it loads in turn), until the last one settled.
  var inflight = 0;
  function busy() {
    var view = byId('view');
    if (view) { view.setAttribute('aria-busy', inflight > 0 ? 'true' : 'false'); }
  }
  document.addEventListener('htmx:beforeRequest', function () { inflight++; busy(); });
  document.addEventListener('htmx:afterRequest', function () {
    inflight = Math.max(0, inflight - 1);
    window.setTimeout(busy, htmx.config.defaultSettleDelay + 30); // a request that swaps nothing settles nothing
  });

  document.addEventListener('htmx:afterSettle', function () {
    busy();
    drawGraph();
    var signout = byId('signout');
    if (signout) { signout.hidden = key() === ''; }
  });

  document.addEventListener('input', function (evt) {
    if (evt.target && evt.target.id === 'asof') {
      var out = byId('asof-label');
      var d = new Date(Number(evt.target.value) * 1000);
      out.textContent = d.toISOString().slice(0, 16).replace('T', ' ');
    }
  });

  var palette = {
    person: '#d9485f', place: '#2f9e44', topic: '#1c7ed6', organization: '#ae3ec9',
    project: '#f08c00', habit: '#0ca678', technology: '#5c7cfa', event: '#e8590c', thing: '#868e96'
  };

  function drawGraph() {
    var el = byId('graph');
    if (!el || el.dataset.drawn || typeof cytoscape !== 'function') { return; }
    el.dataset.drawn = '1';
    var data = JSON.parse(el.dataset.graph);
    var cy = cytoscape({
      container: el,
      maxZoom: 1.6,
      minZoom: 0.2,
      elements: { nodes: data.nodes, edges: data.edges },
      style: [
        { selector: 'node', style: { 'label': 'data(label)', 'font-size': 11, 'background-color': '#868e96', 'width': 18, 'height': 18 } },
        { selector: 'node[id = "' + data.centre.replace(/["\\]/g, '') + '"]', style: { 'width': 28, 'height': 28, 'border-width': 3, 'border-color': '#212529' } },
        { selector: 'edge', style: { 'width': 'mapData(weight, 1, 20, 1, 6)', 'line-color': '#adb5bd', 'label': 'data(label)', 'font-size': 8, 'color': '#868e96', 'curve-style': 'bezier', 'text-rotation': 'autorotate' } }
      ].concat(Object.keys(palette).map(function (t) {
        return { selector: 'node[type = "' + t + '"]', style: { 'background-color': palette[t] } };
      })).concat([
        { selector: 'node[colour]', style: { 'background-color': 'data(colour)' } }
      ]),
      layout: { name: 'concentric', concentric: function (n) { return n.id() === data.centre ? 2 : 1; }, levelWidth: function () { return 1; } }
    });
    el.cy = cy;
    cy.on('tap', 'node', function (evt) { expand(cy, evt.target); });
    cy.on('dbltap', 'node', function (evt) { window.location.href = evt.target.data('href'); });
  }

  function expand(cy, node) {
    if (node.data('expanded')) { return; }
    node.data('expanded', true);
    fetch(node.data('expand'), { headers: headers(), credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) {
        if (!data) { return; }
        var add = data.nodes.concat(data.edges).filter(function (e) {
          return cy.getElementById(e.data.id).empty() &&
            (e.data.source === undefined || cy.getElementById(e.data.target + '→' + e.data.source).empty());
        });
        add.forEach(function (e) { e.group = e.data.source === undefined ? 'nodes' : 'edges'; });
        cy.add(add);
        cy.layout({ name: 'cose', animate: false }).run();
      });
  }

  document.addEventListener('DOMContentLoaded', function () {
    byId('key-form').addEventListener('submit', function (evt) {
      evt.preventDefault();
      var input = byId('key');
      setKey(input.value.trim());
      input.value = '';
      byId('login-error').hidden = true;
      loadView();
    });
    byId('signout').addEventListener('click', function () {
      setKey('');
      window.location.reload();
    });
    loadView();
  });
})();
