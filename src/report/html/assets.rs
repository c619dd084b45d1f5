//! The page's fixed parts: its style sheet and its script. Neither holds
//! anything from the run.

/// The document head with the inline style sheet, and the body's start.
pub(super) const HEAD: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="autograder">
<title>Autograder — course dashboard</title>
<style>
:root { --ink: #1d2330; --muted: #667085; --line: #e4e7ec; --accent: #3565c9; --ok: #1f7a3a; --bad: #b42318; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 1120px; padding: 24px 28px 60px; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 34px 0 6px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 18px 0 6px; }
h3 code { font-size: 15px; }
h4 { margin: 14px 0 4px; font-size: 15px; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 13px; }
pre { background: #f6f7f9; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0 10px; }
.sub, .note, .muted { color: var(--muted); }
.sub.bad { color: var(--bad); font-weight: 600; }
.note { margin: 0 0 10px; font-size: 14px; }
.partial { color: var(--bad); font-weight: 600; margin: 4px 0 0; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 18px; }
.tile { flex: 1 1 150px; border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; background: #fafbfc; }
.tile .big { font-size: 28px; font-weight: 650; }
.tile.bad .big { color: var(--bad); }
.chart { width: 100%; height: auto; display: block; }
.chart text { font-size: 13px; fill: var(--ink); }
.chart .axis { fill: var(--muted); font-size: 12px; }
.chart .label { font-size: 14px; font-family: ui-monospace, Menlo, Consolas, monospace; }
.chart .bar { fill: var(--accent); }
.chart .bar.full { fill: var(--ok); }
.chart .bar.mean { fill: #9db6e8; }
.chart .count.in-dark { fill: #fff; }
.chart .count.in-light { fill: var(--ink); }
.scroll { overflow-x: auto; }
nav.groups { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 6px 8px; align-items: center; margin: 18px 0 0; padding: 8px 0; background: #fff; border-bottom: 1px solid var(--line); }
nav.groups button { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; }
nav.groups button .count { display: inline-block; min-width: 18px; margin-left: 4px; padding: 0 5px; border-radius: 8px; background: #eef2fb; color: #2d4a8a; font-size: 11px; }
nav.groups button[aria-pressed="true"] { background: var(--accent); border-color: var(--accent); color: #fff; }
nav.groups button[aria-pressed="true"] .count { background: #fff; }
.heats { display: flex; flex-wrap: wrap; gap: 0 32px; align-items: flex-start; }
.heat-block { flex: 1 1 440px; min-width: 0; max-width: 100%; }
.legend .key { display: inline-block; width: 12px; height: 12px; margin: 0 2px 0 10px; vertical-align: -1px; background: var(--accent); }
.legend .key:first-child { margin-left: 0; }
.legend .key.mean { background: #9db6e8; }
.legend { font-size: 12px; margin: 8px 0 0; }
.legend span[style] { display: inline-block; min-width: 44px; text-align: center; padding: 1px 4px; border: 1px solid #fff; }
.legend span.dark { color: #fff; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: #f6f7f9; font-weight: 600; }
table.heat td { text-align: center; min-width: 86px; font-variant-numeric: tabular-nums; border: 1px solid #fff; }
table.heat td.none { background: repeating-linear-gradient(45deg, #fbfbfb, #fbfbfb 4px, #f1f1f1 4px, #f1f1f1 8px); }
table.heat td.dark { color: #fff; }
table.heat tbody th { font-weight: 500; white-space: nowrap; }
table.subs td { font-variant-numeric: tabular-nums; }
table.subs td.ok { color: var(--ok); }
table.subs td.ko, table.subs td.error, table.subs td.err { color: var(--bad); }
table.subs thead th { cursor: default; }
.nowrap { white-space: nowrap; }
.integrity { color: var(--bad); }
a.integrity { font-weight: bold; text-decoration: none; cursor: help; }
.tag { display: inline-block; padding: 0 6px; margin: 1px 0; border-radius: 9px; background: #eef2fb; color: #2d4a8a; font-size: 12px; white-space: nowrap; }
.tag.hidden { background: #fff1e6; color: #93370d; }
.meter { display: inline-block; width: 70px; height: 8px; background: #eceef2; border-radius: 4px; vertical-align: middle; overflow: hidden; }
.meter span { display: block; height: 100%; background: var(--bad); }
details { border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; margin: 6px 0; }
details[open] { padding-bottom: 10px; }
summary { cursor: pointer; }
ul.failures { list-style: none; padding: 0; margin: 0; }
li.failure { border-left: 3px solid var(--bad); padding-left: 10px; margin: 8px 0; }
li.failure.hidden { border-left-color: #f79009; }
pre .add { color: #1f7a3a; background: #e8f5ec; }
pre .del { color: #b42318; background: #fdecea; }
pre .hunk { color: var(--muted); }
button { font: inherit; font-size: 14px; padding: 3px 10px; border: 1px solid #cfd4dc; border-radius: 6px; background: #fff; cursor: pointer; }
button:disabled { color: #aab; cursor: default; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; }
.note.bad { color: var(--bad); }
#filter { margin: 4px 0 8px; padding: 5px 9px; width: 260px; border: 1px solid #cfd4dc; border-radius: 6px; font: inherit; }
</style>
</head>
<body>
"##;

/// Shows one lesson's blocks (the buttons of
/// [`group_buttons`](super::groups::group_buttons)), and
/// draws the submissions table and their failures from the page's data
/// (`#data`), a page at a time, with sorting, a filter across all pages and
/// a pager. Student text only ever reaches the page as `textContent`, or as
/// the details' HTML, escaped when the page was written. No data from the
/// run is ever inside the script.
pub(super) const SCRIPT: &str = r#"<script>
// The lesson buttons: show the blocks of one group (a lesson, or the whole
// course: `all`), hide the others.
(function () {
  var nav = document.getElementById('groups');
  if (!nav) return;
  var buttons = nav.querySelectorAll('button[data-group]');
  var blocks = document.querySelectorAll('[data-groups]');
  function show(key) {
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-group') === key)); });
    blocks.forEach(function (e) { e.hidden = e.getAttribute('data-groups').split(' ').indexOf(key) < 0; });
  }
  buttons.forEach(function (b) {
    b.addEventListener('click', function () { show(b.getAttribute('data-group')); });
  });
  nav.hidden = false;
  show('all');
})();
(function () {
  var source = document.getElementById('data');
  var table = document.getElementById('subs');
  if (!source || !table) return;
  var data = JSON.parse(source.textContent);
  var PAGE = 100;
  var filter = document.getElementById('filter');
  var pager = document.getElementById('pager');
  var prev = document.getElementById('prev'), next = document.getElementById('next');
  var label = document.getElementById('page');
  var body = table.tBodies[0];
  var details = document.getElementById('details');
  filter.hidden = false;
  document.querySelectorAll('.js-only').forEach(function (e) { e.hidden = false; });
  var n = data.checkpoints.length;
  var all = data.rows.map(function (r, i) { return i; });
  var shown = all.slice(), page = 0;
  // A column's sort value: the id, the status, a checkpoint's score (-1 for
  // an error), the total percentage (-1 for an error).
  function value(i, col) {
    var r = data.rows[i];
    if (col < 2) return r[col];
    if (col === n + 2) return r[3];
    if (r[1] === 'error') return -1;
    var c = r[col + 4];
    if (c === '\u2713') return 1;
    var p = c.split('/');
    return +p[1] === 0 ? 1 : +p[0] / +p[1];
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function cell(tr, text, v, cls) {
    var td = el('td', text, cls);
    td.setAttribute('data-v', v);
    tr.appendChild(td);
  }
  // A submission past the page's budget: its failures in brief.
  function brief(d) {
    var det = el('details');
    det.id = 'sub-' + d.i;
    det.setAttribute('data-id', d.id);
    var sum = el('summary');
    sum.appendChild(el('b', d.id));
    var what = d.error !== undefined ? 'not graded' : d.n === 0 ? 'all cases passed' : d.n + ' failed case' + (d.n === 1 ? '' : 's');
    sum.appendChild(document.createTextNode(' \u2014 ' + d.total + ' \u2014 ' + what + ' (in brief)'));
    det.appendChild(sum);
    if (d.integrity) det.appendChild(el('p', d.integrity + ' integrity finding' + (d.integrity === 1 ? '' : 's') + ' (instructors only): see the table\u2019s \u2691 and the --json report', 'integrity'));
    if (d.error !== undefined) {
      det.appendChild(el('pre', 'error: ' + d.error));
    } else if (d.all !== undefined) {
      det.appendChild(el('p', 'Every case failed:'));
      det.appendChild(el('pre', d.all));
    } else {
      (d.checkpoints || []).forEach(function (c) {
        if (c[4]) {
          det.appendChild(el('h4', data.checkpoints[c[0]] + ': not defined in main.py \u2014 ' + c[2] + ' case' + (c[2] === 1 ? '' : 's') + ' not run', 'missing'));
          return;
        }
        det.appendChild(el('h4', data.checkpoints[c[0]] + ': ' + c[1] + ' of ' + c[2] + ' cases failed'));
        var names = c[3].map(function (k) { return data.cases[c[0]][k]; });
        det.appendChild(el('p', 'first: ' + names.join(', ') + (c[1] > names.length ? ', \u2026 (the --json report has every one)' : ''), 'muted'));
      });
    }
    return det;
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    if (page >= pages) page = pages - 1;
    var slice = shown.slice(page * PAGE, (page + 1) * PAGE);
    var rows = document.createDocumentFragment();
    slice.forEach(function (i) {
      var r = data.rows[i];
      var tr = el('tr');
      var td = el('td', undefined, 'nowrap');
      td.setAttribute('data-v', r[0]);
      var a = el('a', r[0]);
      a.href = '#sub-' + i;
      td.appendChild(a);
      if (r[5] !== null) {
        var badge = el('a', '\u2691 ' + r[4], 'integrity');
        badge.href = '#sub-' + i;
        badge.title = r[5];
        td.appendChild(document.createTextNode(' '));
        td.appendChild(badge);
      }
      tr.appendChild(td);
      cell(tr, r[1], r[1], r[1]);
      for (var col = 2; col < n + 2; col++) {
        var t = r[col + 4];
        cell(tr, t, value(i, col), r[1] === 'error' ? 'err' : t === '\u2713' ? 'ok' : 'ko');
      }
      cell(tr, r[2], r[3], 'nowrap');
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
    details.replaceChildren();
    slice.forEach(function (i) {
      var d = data.details[i];
      if (typeof d === 'string') details.insertAdjacentHTML('beforeend', d);
      else details.appendChild(brief(d));
    });
    label.textContent = 'page ' + (page + 1) + ' of ' + pages + ' \u00b7 ' + shown.length + ' submission' + (shown.length === 1 ? '' : 's');
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
    pager.hidden = data.rows.length <= PAGE;
  }
  function apply() {
    var q = filter.value.toLowerCase();
    shown = q === '' ? all.slice() : all.filter(function (i) { return data.rows[i][0].toLowerCase().indexOf(q) >= 0; });
    page = 0;
    draw();
  }
  filter.addEventListener('input', apply);
  prev.addEventListener('click', function () { page = Math.max(0, page - 1); draw(); });
  next.addEventListener('click', function () { page += 1; draw(); });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.style.cursor = 'pointer';
    var asc = true;
    th.addEventListener('click', function () {
      var num = th.getAttribute('data-kind') === 'num';
      var dir = asc ? 1 : -1;
      all.sort(function (a, b) {
        var x = value(a, col), y = value(b, col);
        return dir * (num ? x - y : (x < y ? -1 : x > y ? 1 : 0));
      });
      asc = !asc;
      var q = filter.value.toLowerCase();
      shown = q === '' ? all.slice() : all.filter(function (i) { return data.rows[i][0].toLowerCase().indexOf(q) >= 0; });
      draw();
    });
  });
  // Open the submission a link points at, on its page (and keep it open on reload).
  function openTarget() {
    var m = /^#sub-(\d+)$/.exec(location.hash);
    if (m) {
      var i = +m[1], at = shown.indexOf(i);
      if (at < 0 && i < data.rows.length) { filter.value = ''; shown = all.slice(); at = shown.indexOf(i); }
      if (at >= 0 && Math.floor(at / PAGE) !== page) { page = Math.floor(at / PAGE); draw(); }
    }
    var t = location.hash && document.getElementById(location.hash.slice(1));
    if (t && t.tagName === 'DETAILS') { t.open = true; t.scrollIntoView(); }
  }
  draw();
  window.addEventListener('hashchange', openTarget);
  openTarget();
})();
</script>
"#;
