// The webhook inspector's one script (src/listener/inspector/server.ts serves it). It makes the
// pages livelier; everything they show is in their HTML:
// - the list follows new deliveries: a stream says when some came, the page is fetched
//   again and its rows are put in place of the old ones (focus kept where it was);
// - the replay form posts JSON to the API and shows what the apps answered; then the page is
//   fetched again and its "What the apps answered" put in place of the old one, the replay's
//   attempt among them (said politely in the form's status; focus stays on the form).
// What comes from the server goes in as the server's HTML (escaped there) or as text, never as markup.
'use strict';
(function () {
  var live = document.body.getAttribute('data-live');
  if (live && window.EventSource && window.fetch) follow(live);
  var form = document.getElementById('replay');
  if (form && window.fetch) replayForm(form);

  function follow(url) {
    var busy = false;
    var again = false;
    new EventSource(url).addEventListener('kept', refresh);
    function refresh() {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      freshPage()
        .then(function (fresh) {
          if (fresh) swap(fresh);
        })
        .catch(function () {
          // The next delivery tries again.
        })
        .finally(function () {
          busy = false;
          if (again) {
            again = false;
            refresh();
          }
        });
    }
  }

  /** This page as the server writes it now, parsed (inert: its scripts do not run), or null when it is not answered. */
  function freshPage() {
    return fetch(window.location.href, { headers: { accept: 'text/html' }, cache: 'no-store' })
      .then(function (response) {
        return response.ok ? response.text() : null;
      })
      .then(function (text) {
        return text === null ? null : new DOMParser().parseFromString(text, 'text/html');
      });
  }

  /** The rows and the link to older ones from a fresh copy of the page; the summary line as text. */
  function swap(fresh) {
    ['rows', 'older'].forEach(function (id) {
      var here = document.getElementById(id);
      var there = fresh.getElementById(id);
      if (!here || !there) return;
      var active = document.activeElement;
      var focused = active && here.contains(active) ? active.id : '';
      here.replaceChildren.apply(
        here,
        Array.prototype.map.call(there.childNodes, function (node) {
          return document.importNode(node, true);
        }),
      );
      var refocus = focused && document.getElementById(focused);
      if (refocus) refocus.focus();
    });
    var summary = document.getElementById('summary');
    var freshSummary = fresh.getElementById('summary');
    if (summary && freshSummary && summary.textContent !== freshSummary.textContent)
      summary.textContent = freshSummary.textContent;
  }

  /** `name: value` lines as an object; `name:` alone leaves the header out (null). A string says what is wrong. */
  function parseHeaders(text) {
    var headers = {};
    var lines = text.split(/\r?\n/);
    for (var i = 0; i < lines.length; i++) {
      var line = lines[i].trim();
      if (line === '') continue;
      var colon = line.indexOf(':');
      if (colon < 1) return 'Line ' + (i + 1) + ' of the headers is not "name: value".';
      var value = line.slice(colon + 1).trim();
      headers[line.slice(0, colon).trim()] = value === '' ? null : value;
    }
    return headers;
  }

  function replayForm(form) {
    var id = form.getAttribute('data-delivery');
    var result = document.getElementById('replay-result');
    var buttons = form.querySelectorAll('button');
    var to = form.elements.namedItem('to');
    to.addEventListener('input', function () {
      var byUrl = form.querySelector('input[name="target"][value="url"]');
      if (byUrl) byUrl.checked = true;
    });

    function say(text, failed) {
      result.replaceChildren();
      add(text, failed);
    }

    function add(text, failed) {
      var line = document.createElement('p');
      line.textContent = text;
      if (failed) line.className = 'bad';
      result.appendChild(line);
    }

    /**
     * "What the apps answered" from a fresh copy of the page, in place of this one's (a section,
     * or an empty container before the first attempt). The server wrote it after keeping the
     * replay's attempts, so they are in it. The status says so (politely: it is a live region).
     */
    function showAttempts() {
      return freshPage()
        .then(function (fresh) {
          var here = document.getElementById('attempts');
          var there = fresh && fresh.getElementById('attempts');
          if (!here || !there) throw new Error('no answers on the page');
          here.replaceWith(document.importNode(there, true));
          add('Added to What the apps answered, above the form.', false);
        })
        .catch(function () {
          add('Reload the page to see it in What the apps answered.', true);
        });
    }

    function shown(replay) {
      var how = replay.edited
        ? 'Edited, signed again with ' +
          (replay.signed ? replay.signed.secret : 'the secret') +
          (replay.signed && replay.signed.id ? ' as ' + replay.signed.id : '') +
          ', and replayed:'
        : 'Replayed as received:';
      say(how, false);
      var list = document.createElement('ul');
      list.className = 'answers';
      replay.attempts.forEach(function (attempt) {
        var item = document.createElement('li');
        var failed = attempt.status === null || attempt.status < 200 || attempt.status >= 300;
        item.className = failed ? 'bad' : 'ok';
        item.textContent =
          attempt.url +
          (attempt.status === null
            ? ' could not be reached: ' + attempt.error
            : ' answered ' +
              attempt.status +
              ' in ' +
              attempt.duration_ms +
              ' ms' +
              (attempt.answer ? ': ' + attempt.answer : ''));
        list.appendChild(item);
      });
      result.appendChild(list);
    }

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var mode = event.submitter ? event.submitter.value : 'as-received';
      var request = {};
      var target = form.querySelector('input[name="target"]:checked');
      if (target && target.value === 'url') {
        request.to = to.value.trim();
        if (request.to === '') return say('Give the URL to replay to.', true);
      }
      if (mode === 'edited') {
        request.body = form.elements.namedItem('body').value;
        var headers = parseHeaders(form.elements.namedItem('headers').value);
        if (typeof headers === 'string') return say(headers, true);
        request.headers = headers;
      }
      say('Replaying…', false);
      var pressed = event.submitter || buttons[0];
      buttons.forEach(function (button) {
        button.disabled = true;
      });
      fetch('/api/deliveries/' + id + '/replay', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      })
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) return say('Not replayed: ' + answer.error, true);
            shown(answer.replay);
            return showAttempts();
          });
        })
        .catch(function (error) {
          say('The inspector did not answer: ' + error.message, true);
        })
        .finally(function () {
          buttons.forEach(function (button) {
            button.disabled = false;
          });
          // A focused button that is disabled loses the focus (to the body): it goes back, unless
          // the person has moved on meanwhile.
          var active = document.activeElement;
          if (!active || active === document.body) pressed.focus();
        });
    });
  }
})();
