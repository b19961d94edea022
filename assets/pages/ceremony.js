/*
 * The sandbox pages' one script (served as /_sandbox/assets/ceremony.js under a CSP that allows
 * no other). Every form works without it; it makes the pages livelier:
 * - after an action (the page comes back at #step) the step is scrolled into view and focused,
 *   and on every load it is said in the live region, so a screen reader announces it;
 * - a page waiting for someone else reloads itself, at its step, once its envelope moves on;
 * - the signature step gets its pad (draw with a mouse, a pen or a finger; typing stays the
 *   keyboard's way) and a live preview of the typed signature.
 */
'use strict';
(function () {
  var doc = document;

  function announce() {
    var step = doc.getElementById('step');
    var region = doc.getElementById('announce');
    if (!step) return;
    if (location.hash === '#step') {
      // After the browser's own scroll to the fragment, which comes once the page has loaded.
      var settle = function () {
        // Beside the document (a wide screen) the step is in view from the top of the page, with
        // the title and progress above it: go back there unless it would not fit.
        var panel = step.closest('.panel');
        if (panel && getComputedStyle(panel).position === 'sticky') window.scrollTo(0, 0);
        var box = step.getBoundingClientRect();
        if (box.top < 0 || box.bottom > window.innerHeight) step.scrollIntoView({ block: 'start' });
        step.focus({ preventScroll: true });
      };
      if (doc.readyState === 'complete') setTimeout(settle, 0);
      else
        window.addEventListener('load', function () {
          setTimeout(settle, 0);
        });
    }
    if (!region) return;
    var count = step.querySelector('.step-count');
    var title = step.querySelector('h2');
    var words = (count ? count.textContent + ': ' : '') + (title ? title.textContent : '');
    // Filled after load, so that screen readers, which watch the region, read the change.
    setTimeout(function () {
      region.textContent = words.replace(/\s+/g, ' ').trim();
    }, 50);
  }

  function poll() {
    var url = doc.body.getAttribute('data-poll');
    if (!url || !window.fetch) return;
    var first = null;
    function check() {
      fetch(url, { credentials: 'same-origin', cache: 'no-store' })
        .then(function (r) {
          return r.ok ? r.text() : null;
        })
        .then(function (text) {
          if (text === null) return;
          if (first === null) first = text;
          else if (text !== first) {
            // Back at the step: a fragment alone would not reload the page.
            if (doc.getElementById('step'))
              history.replaceState(null, '', location.href.split('#')[0] + '#step');
            location.reload();
            return;
          }
          setTimeout(check, 1500);
        })
        .catch(function () {
          setTimeout(check, 3000);
        });
    }
    check();
  }

  function signaturePad() {
    var pad = doc.querySelector('canvas.pad');
    if (!pad) return;
    var form = pad.closest('form');
    var field = doc.getElementById('drawn');
    var typed = doc.getElementById('typed');
    var preview = doc.getElementById('typed-preview');
    var typedPanel = form.querySelector('.typed-panel');
    var drawnPanel = form.querySelector('.drawn-panel');
    var ctx = pad.getContext('2d');
    var strokes = [];
    var current = null;

    Array.prototype.forEach.call(form.querySelectorAll('[data-needs-script]'), function (el) {
      el.hidden = false;
    });
    function showMode() {
      var drawn = form.querySelector('input[name="kind"]:checked').value === 'drawn';
      typedPanel.hidden = drawn;
      drawnPanel.hidden = !drawn;
    }
    Array.prototype.forEach.call(form.querySelectorAll('input[name="kind"]'), function (radio) {
      radio.addEventListener('change', showMode);
    });
    showMode();
    if (typed && preview)
      typed.addEventListener('input', function () {
        preview.textContent = typed.value;
      });

    ctx.lineWidth = 5;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.strokeStyle = '#1b2a6b';
    function point(event) {
      var box = pad.getBoundingClientRect();
      var x = Math.round(((event.clientX - box.left) * pad.width) / box.width);
      var y = Math.round(((event.clientY - box.top) * pad.height) / box.height);
      return [Math.max(0, Math.min(pad.width, x)), Math.max(0, Math.min(pad.height, y))];
    }
    function save() {
      field.value = strokes
        .map(function (stroke) {
          var pairs = [];
          for (var i = 0; i + 1 < stroke.length; i += 2) pairs.push(stroke[i] + ',' + stroke[i + 1]);
          return pairs.join(' ');
        })
        .join(';');
    }
    pad.addEventListener('pointerdown', function (event) {
      event.preventDefault();
      pad.setPointerCapture(event.pointerId);
      var p = point(event);
      current = [p[0], p[1]];
      strokes.push(current);
      ctx.beginPath();
      ctx.moveTo(p[0], p[1]);
      ctx.lineTo(p[0] + 0.1, p[1]);
      ctx.stroke();
    });
    pad.addEventListener('pointermove', function (event) {
      if (!current) return;
      var p = point(event);
      var lx = current[current.length - 2];
      var ly = current[current.length - 1];
      // Points closer than this add nothing a signature needs, and keep the form small.
      if (Math.abs(p[0] - lx) + Math.abs(p[1] - ly) < 3) return;
      current.push(p[0], p[1]);
      ctx.beginPath();
      ctx.moveTo(lx, ly);
      ctx.lineTo(p[0], p[1]);
      ctx.stroke();
    });
    function end() {
      if (!current) return;
      current = null;
      save();
    }
    pad.addEventListener('pointerup', end);
    pad.addEventListener('pointercancel', end);
    doc.getElementById('clear-pad').addEventListener('click', function () {
      strokes = [];
      save();
      ctx.clearRect(0, 0, pad.width, pad.height);
    });
  }

  announce();
  poll();
  signaturePad();
})();
