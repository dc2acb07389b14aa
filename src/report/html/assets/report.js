// gpuwhy HTML report: builds the page from the JSON in #gpuwhy-data.
// Rules (docs/html_report.md): no network, and trace strings only ever reach
// the DOM through textContent / attribute values set by code, never as markup.
(function () {
  'use strict';

  // ---- errors: visible on the page and readable by the browser tests ----
  var errorCount = 0;
  function reportError(msg) {
    errorCount++;
    document.documentElement.setAttribute('data-js-errors', String(errorCount));
    var box = document.getElementById('js-errors');
    if (!box) {
      box = document.createElement('pre');
      box.id = 'js-errors';
      document.body.insertBefore(box, document.body.firstChild);
    }
    box.textContent += 'report error: ' + msg + '\n';
  }
  window.addEventListener('error', function (e) {
    reportError((e.message || 'error') + ' (' + (e.filename || '') + ':' + (e.lineno || 0) + ')');
  });
  window.addEventListener('unhandledrejection', function (e) { reportError(String(e.reason)); });
  document.documentElement.setAttribute('data-js-errors', '0');

  // ---- DOM helpers (textContent only) ----
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function section(parent, title, hint) {
    var s = add(parent, el('section', 'card'));
    add(s, el('h2', null, title));
    if (hint) add(s, el('p', 'hint', hint));
    return s;
  }

  // ---- formatting ----
  function isNum(v) { return typeof v === 'number' && isFinite(v); }
  function fmtPct(r, d) { return isNum(r) ? (r * 100).toFixed(d === undefined ? 1 : d) + '%' : 'n/a'; }
  function fmtDur(ns) {
    if (!isNum(ns)) return 'n/a';
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 2) + ' s';
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e8 ? 0 : a >= 1e7 ? 1 : 2) + ' ms';
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e5 ? 0 : 1) + ' µs';
    return Math.round(ns) + ' ns';
  }
  function fmtInt(v) { return isNum(v) ? Math.round(v).toLocaleString('en-US') : 'n/a'; }
  function fmtBytes(b) {
    if (!isNum(b)) return 'n/a';
    var u = ['B', 'KB', 'MB', 'GB', 'TB'], i = 0;
    while (Math.abs(b) >= 1000 && i < u.length - 1) { b /= 1000; i++; }
    return (i ? b.toFixed(1) : String(Math.round(b))) + ' ' + u[i];
  }
  function fmtMetric(v, unit) {
    if (!isNum(v)) return 'n/a';
    switch (unit) {
      case 'ns': return fmtDur(v);
      case 'ratio': return fmtPct(v);
      case 'count': return fmtInt(v);
      case 'bytes': return fmtBytes(v);
      case 'GB/s': return v.toFixed(2) + ' GB/s';
      case 'per_s': return v.toFixed(1) + '/s';
      case 'MHz': return Math.round(v) + ' MHz';
      case 'mW': return (v / 1000).toFixed(1) + ' W';
      default: return String(Math.round(v * 1000) / 1000) + (unit ? ' ' + unit : '');
    }
  }

  // ---- colours ----
  var C = {
    compute: '#2b6cb0', comm: '#805ad5', copy: '#2f855a',
    causes: ['#dd6b20', '#e53e3e', '#d69e2e', '#718096', '#cbd5e0', '#b83280', '#8c5a2b'],
    util: ['#1a202c', '#3182ce', '#dd6b20'],
    counter: ['#1a202c', '#38a169', '#805ad5', '#d69e2e', '#e53e3e', '#3182ce', '#718096']
  };
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16 & 255) + ',' + (n >> 8 & 255) + ',' + (n & 255) + ',' + a + ')';
  }

  // ---- chart helpers (uPlot) ----
  var charts = [];
  function chartWidth() {
    var w = document.documentElement.clientWidth || 1200;
    return Math.max(480, Math.min(1320, w - 72));
  }
  // wheelPanPlugin: mouse wheel zooms x at the cursor; shift+drag (or middle
  // button) pans; drag selects a range; double click resets (uPlot default).
  function wheelPanPlugin() {
    return {
      hooks: {
        ready: function (u) {
          var over = u.over;
          over.addEventListener('wheel', function (e) {
            e.preventDefault();
            var x = u.scales.x, rect = over.getBoundingClientRect();
            if (x.min == null || x.max == null) return;
            var at = u.posToVal(e.clientX - rect.left, 'x');
            var f = e.deltaY < 0 ? 0.75 : 1 / 0.75;
            var lo = at - (at - x.min) * f, hi = at + (x.max - at) * f;
            var d = u.data[0], dmin = d[0], dmax = d[d.length - 1];
            if (hi - lo >= dmax - dmin) { lo = dmin; hi = dmax; }
            u.setScale('x', { min: Math.max(lo, dmin), max: Math.min(hi, dmax) });
          }, { passive: false });
          over.addEventListener('mousedown', function (e) {
            if (!(e.shiftKey || e.button === 1)) return;
            e.preventDefault();
            e.stopPropagation();
            var x0 = e.clientX, min0 = u.scales.x.min, max0 = u.scales.x.max;
            var perPx = (max0 - min0) / over.clientWidth;
            function move(ev) {
              var dx = (ev.clientX - x0) * perPx;
              u.setScale('x', { min: min0 - dx, max: max0 - dx });
            }
            function up() {
              document.removeEventListener('mousemove', move);
              document.removeEventListener('mouseup', up);
            }
            document.addEventListener('mousemove', move);
            document.addEventListener('mouseup', up);
          }, true);
        }
      }
    };
  }
  // stepMarks: vertical lines at step starts (when few enough are in view).
  function stepMarks(starts) {
    return function (u) {
      if (!starts || !starts.length) return;
      var x = u.scales.x, n = 0, i;
      for (i = 0; i < starts.length; i++) if (starts[i] >= x.min && starts[i] <= x.max) n++;
      if (n > 400) return;
      var ctx = u.ctx;
      ctx.save();
      ctx.strokeStyle = 'rgba(26,32,44,0.45)';
      ctx.setLineDash([4, 3]);
      ctx.lineWidth = 1;
      for (i = 0; i < starts.length; i++) {
        if (starts[i] < x.min || starts[i] > x.max) continue;
        var px = Math.round(u.valToPos(starts[i], 'x', true)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(px, u.bbox.top);
        ctx.lineTo(px, u.bbox.top + u.bbox.height);
        ctx.stroke();
      }
      ctx.restore();
    };
  }
  // syncGroup: charts of one device share their x range.
  function syncGroup() {
    var members = [], busy = false;
    return {
      add: function (u) { members.push(u); u._synced = members; },
      hook: function (u, key) {
        if (key !== 'x' || busy) return;
        busy = true;
        var x = u.scales.x;
        members.forEach(function (m) {
          if (m !== u && (m.scales.x.min !== x.min || m.scales.x.max !== x.max))
            m.setScale('x', { min: x.min, max: x.max });
        });
        busy = false;
      }
    };
  }
  function secAxis() {
    return { label: 'time since trace start (s)', labelSize: 18, size: 36,
      values: function (u, v) { return v.map(function (x) { return x == null ? '' : +x.toFixed(6) + ''; }); } };
  }
  function pctAxis(label) {
    return { label: label || '', labelSize: 18, size: 48,
      values: function (u, v) { return v.map(function (x) { return Math.round(x * 100) + '%'; }); } };
  }
  function makeChart(parent, opts, data) {
    var box = add(parent, el('div', 'chart'));
    opts.width = opts.width || chartWidth();
    opts.height = opts.height || 260;
    var u = new uPlot(opts, data, box);
    charts.push(u);
    return u;
  }
  function timeXs(start, bin, n) {
    var xs = new Array(n);
    for (var i = 0; i < n; i++) xs[i] = start + i * bin;
    return xs;
  }

  // ---- sortable table ----
  function table(parent, cols, rows, opts) {
    opts = opts || {};
    var wrap = add(parent, el('div', 'table-wrap'));
    var t = add(wrap, el('table', 'data sortable'));
    var thead = add(t, el('thead')), tr = add(thead, el('tr'));
    var tbody = add(t, el('tbody'));
    var sortKey = opts.sortKey || null, desc = opts.desc !== false;
    var ths = cols.map(function (c) {
      var th = add(tr, el('th', c.num ? 'num' : null, c.label));
      th.title = 'sort by ' + c.label;
      th.addEventListener('click', function () {
        if (sortKey === c.key) desc = !desc; else { sortKey = c.key; desc = !!c.num; }
        render();
      });
      return th;
    });
    function render() {
      var sorted = rows.slice();
      if (sortKey) {
        sorted.sort(function (a, b) {
          if (!!a._pin !== !!b._pin) return a._pin ? 1 : -1;
          var x = a[sortKey], y = b[sortKey];
          if (x == null && y == null) return 0;
          if (x == null) return 1;
          if (y == null) return -1;
          var r = typeof x === 'number' ? x - y : String(x).localeCompare(String(y));
          return desc ? -r : r;
        });
      }
      cols.forEach(function (c, i) {
        ths[i].textContent = c.label + (sortKey === c.key ? (desc ? ' ▼' : ' ▲') : '');
        ths[i].setAttribute('aria-sort', sortKey === c.key ? (desc ? 'descending' : 'ascending') : 'none');
      });
      while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
      sorted.forEach(function (r) {
        var row = add(tbody, el('tr', r._cls || null));
        cols.forEach(function (c) {
          var v = r[c.key];
          var td = add(row, el('td', (c.num ? 'num' : '') + (c.cls ? ' ' + c.cls : ''),
            c.fmt ? c.fmt(v, r) : (v == null ? '' : v)));
          if (c.title) td.title = String(v == null ? '' : v);
        });
      });
    }
    render();
    return t;
  }

  // ---- `gpuwhy diff --html`: the page of a run comparison ----
  function renderDiff(d) {
    var head = add(app, el('header', 'top'));
    add(head, el('h1', null, 'gpuwhy diff — what changed between two runs'));
    var ins = add(head, el('ul', 'inputs'));
    add(add(ins, el('li')), el('span', 'path', 'before: ' + d.before.label));
    add(add(ins, el('li')), el('span', 'path', 'after: ' + d.after.label));
    var why = add(app, el('section', 'card why'));
    add(why, el('div', 'why-label', 'DIFF'));
    add(why, el('p', 'why-line', d.headline));
    add(why, el('p', 'hint', 'curve ' + (d.before.curve_class || 'n/a') + ' → ' + (d.after.curve_class || 'n/a') +
      ' · bottleneck ' + (d.before.bottleneck || 'n/a') + ' → ' + (d.after.bottleneck || 'n/a')));
    if (d.failed_gates.length) {
      var g = section(app, 'Failed gates', 'The --fail-if expressions this run violates (exit code 3).');
      var ul = add(g, el('ul'));
      d.failed_gates.forEach(function (x) { add(ul, el('li', 'bad', x)); });
    }
    function val(v, unit) {
      if (!isNum(v)) return 'n/a';
      if (unit === 'ns') return fmtDur(v);
      if (unit === 'ratio') return fmtPct(v);
      if (unit === 'bytes') return fmtBytes(v);
      return v.toFixed(1);
    }
    var m = section(app, 'Side by side', d.noise_known ? 'Run-to-run noise on the mean step: ±' +
      fmtDur(d.step_noise_ns) + ' (2 standard errors); the change is ' +
      (d.step_change_beyond_noise ? 'beyond it.' : 'within it.') : 'Noise unknown (fewer than 2 steps on a side).');
    table(m, [
      { key: 'label', label: 'figure' },
      { key: 'before', label: 'before', num: true, fmt: function (v, r) { return val(v, r.unit); } },
      { key: 'after', label: 'after', num: true, fmt: function (v, r) { return val(v, r.unit); } },
      { key: 'change', label: 'change', num: true, fmt: function (v, r) {
        if (r.unit === 'ratio' && isNum(r.change_pp)) return (r.change_pp >= 0 ? '+' : '') + r.change_pp.toFixed(1) + ' pp';
        return isNum(r.change_ratio) ? (r.change_ratio >= 0 ? '+' : '') + (r.change_ratio * 100).toFixed(1) + '%' : 'n/a';
      } }
    ], d.metrics.filter(function (x) { return isNum(x.before) || isNum(x.after); }).map(function (x) {
      return { label: x.label, before: x.before, after: x.after, unit: x.unit, change_ratio: x.change_ratio,
        change_pp: x.change_pp, change: isNum(x.change_pp) ? x.change_pp : x.change_ratio };
    }), {});
    if (d.idle_by_cause.length) {
      var ic = section(app, 'GPU idle by cause, per step', 'Left bar of each pair: before; right bar: after.');
      var xs = [], b = [], a = [];
      d.idle_by_cause.forEach(function (c, i) { xs.push(i); b.push(isNum(c.before_ns_per_step) ? c.before_ns_per_step / 1e6 : 0);
        a.push(isNum(c.after_ns_per_step) ? c.after_ns_per_step / 1e6 : 0); });
      makeChart(ic, {
        height: 240,
        scales: { x: { time: false, range: [-0.6, xs.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; } } },
        axes: [{ label: 'idle cause', values: function (u, v) { return v.map(function (i) { var c = d.idle_by_cause[Math.round(i)]; return c && Math.abs(i - Math.round(i)) < 1e-9 ? c.cause : ''; }); }, splits: function () { return xs; } },
          { label: 'ms per step', size: 56 }],
        series: [{ label: 'cause' },
          { label: 'before', stroke: '#718096', fill: alpha('#718096', 0.6), paths: uPlot.paths.bars({ size: [0.35, 40], align: -1 }), points: { show: false } },
          { label: 'after', stroke: C.compute, fill: alpha(C.compute, 0.7), paths: uPlot.paths.bars({ size: [0.35, 40], align: 1 }), points: { show: false } }]
      }, [xs, b, a]);
    }
    var f = section(app, 'Findings', 'Loss per step (an upper bound) before and after; for resolved findings, the before run\'s predicted step and its error against the after run.');
    table(f, [
      { key: 'status', label: 'status' },
      { key: 'id', label: 'finding' },
      { key: 'before_lost_per_step_ns', label: 'before', num: true, fmt: fmtDur },
      { key: 'after_lost_per_step_ns', label: 'after', num: true, fmt: fmtDur },
      { key: 'predicted_step_ns_after_fix', label: 'predicted step', num: true, fmt: fmtDur },
      { key: 'prediction_error_ratio', label: 'prediction error', num: true, fmt: function (v) { return isNum(v) ? (v >= 0 ? '+' : '') + (v * 100).toFixed(1) + '%' : ''; } }
    ], d.findings, {});
    var k = section(app, 'Kernels', 'Top kernels of each run matched by name, per step.');
    table(k, [
      { key: 'status', label: 'status' },
      { key: 'before_ns_per_step', label: 'before', num: true, fmt: fmtDur },
      { key: 'after_ns_per_step', label: 'after', num: true, fmt: fmtDur },
      { key: 'before_count_per_step', label: 'count before', num: true, fmt: function (v) { return isNum(v) ? v.toFixed(1) : ''; } },
      { key: 'after_count_per_step', label: 'count after', num: true, fmt: function (v) { return isNum(v) ? v.toFixed(1) : ''; } },
      { key: 'name', label: 'kernel', cls: 'name', title: true }
    ], d.kernels, { sortKey: 'after_ns_per_step' });
    add(app, el('footer', 'muted', 'gpuwhy diff · charts: uPlot (MIT, embedded) · this page makes no network request'));
  }

  // ---- data ----
  var data = JSON.parse(document.getElementById('gpuwhy-data').textContent);
  var app = document.getElementById('app');
  if (data.kind === 'gpuwhy-diff') {
    renderDiff(data);
    setTimeout(checkCharts, 50);
    return;
  }
  var causes = data.causes;
  function originOfRank(rank) {
    for (var i = 0; i < data.traces.length; i++)
      if (data.traces[i].rank === rank) return data.traces[i].origin_ns;
    return data.traces.length ? data.traces[0].origin_ns : null;
  }

  // ---- header ----
  var head = add(app, el('header', 'top'));
  add(head, el('h1', null, 'gpuwhy — why is the GPU not doing real work?'));
  var inputs = add(head, el('ul', 'inputs'));
  data.traces.slice(0, 12).forEach(function (t) {
    var li = add(inputs, el('li'));
    add(li, el('span', 'path', t.path));
    add(li, el('span', 'muted', ' ' + t.format + (isNum(t.size_bytes) ? ', ' + fmtBytes(t.size_bytes) : '') +
      (t.rank != null ? ', rank ' + t.rank : '') + (isNum(t.extent_ns) ? ', ' + fmtDur(t.extent_ns) + ' traced' : '')));
    if (t.merged_inputs.length) add(li, el('span', 'muted', ' + ' + t.merged_inputs.join(', ')));
    (t.import_notes || []).forEach(function (n) { add(li, el('div', 'muted note', 'read: ' + n)); });
  });
  if (data.traces.length > 12) add(inputs, el('li', 'muted', '… and ' + (data.traces.length - 12) + ' more inputs'));

  // ---- WHY ----
  var dg = data.diagnosis;
  if (dg) {
    var why = add(app, el('section', 'card why'));
    add(why, el('div', 'why-label', 'WHY'));
    add(why, el('p', 'why-line', dg.top_line));
    var chips = add(why, el('div', 'chips'));
    function chip(label, value, cls) {
      var c = add(chips, el('span', 'chip' + (cls ? ' ' + cls : '')));
      add(c, el('span', 'chip-k', label));
      add(c, el('span', 'chip-v', value));
    }
    chip('curve', dg.curve_shape, 'shape-' + String(dg.curve_shape).toLowerCase());
    if (dg.bottleneck) chip('bottleneck', dg.bottleneck);
    chip('GPU idle', fmtPct(dg.idle_step_ratio) + (dg.per_step_basis ? ' of steps' : ' of span'));
    chip('kernel active', fmtPct(dg.kernel_step_ratio));
    if (isNum(dg.host_wait_idle_ratio)) chip('idle waiting on host', fmtPct(dg.host_wait_idle_ratio));
    if (dg.step_count != null) chip('steps', fmtInt(dg.step_count));
    if (dg.rank_count > 1) chip('ranks', fmtInt(dg.rank_count));
    chip('scenario', dg.scenario + (dg.scenario_inferred ? ' (inferred)' : ''));
    if (dg.curve_reason) add(why, el('p', 'muted', 'Curve: ' + dg.curve_reason));
    if (dg.curve_note) add(why, el('p', 'muted', dg.curve_note));
  }

  // ---- findings ----
  if (dg) {
    var fs = section(app, 'Findings, ranked by time lost',
      'Time lost is an upper bound per step unless marked as an estimate; findings overlap, so never add them up.');
    if (!dg.findings.length) add(fs, el('p', null, 'No finding: the detectors found nothing to fix.'));
    dg.findings.forEach(function (f, i) {
      var card = add(fs, el('details', 'finding sev-' + f.severity));
      if (i < 2) card.open = true;
      var sum = add(card, el('summary'));
      add(sum, el('span', 'rank-no', '#' + (i + 1)));
      add(sum, el('span', 'sev', f.severity));
      add(sum, el('span', 'f-title', f.title));
      if (isNum(f.lost_step_ratio)) {
        var lost = add(sum, el('span', 'lost'));
        var bar = add(lost, el('span', 'lost-bar'));
        bar.style.width = Math.min(100, Math.max(1, f.lost_step_ratio * 100)) + '%';
        add(lost, el('span', 'lost-t', (f.upper_bound ? '≤ ' : '≈ ') + fmtPct(f.lost_step_ratio) +
          (f.per_step_basis ? ' of step' : ' of span') +
          (isNum(f.lost_per_step_ns) ? ' (' + fmtDur(f.lost_per_step_ns) + ')' : '')));
      }
      var body = add(card, el('div', 'f-body'));
      add(body, el('p', null, f.summary));
      add(body, el('p', 'muted', f.id + ' · ' + f.category +
        (f.rank != null ? ' · rank ' + f.rank : '') + (f.device != null ? ' · GPU ' + f.device : '')));
      if (f.evidence.length) {
        var dl = add(body, el('dl', 'evidence'));
        f.evidence.forEach(function (m) {
          var pair = add(dl, el('div', 'ev'));
          add(pair, el('dt', null, m.label));
          add(pair, el('dd', null, fmtMetric(m.value, m.unit)));
        });
      }
      if (f.examples.length) {
        add(body, el('h4', null, 'Worst examples'));
        table(body, [
          { key: 'what', label: 'what', cls: 'name', title: true },
          { key: 'at', label: 'at (ms from trace start)', num: true, fmt: function (v) { return isNum(v) ? v.toFixed(3) : ''; } },
          { key: 'dur_ns', label: 'duration', num: true, fmt: fmtDur },
          { key: 'step', label: 'step', num: true },
          { key: 'rank', label: 'rank', num: true },
          { key: 'detail', label: 'detail' }
        ], f.examples.map(function (e) {
          var o = originOfRank(e.rank);
          return { what: e.what, at: isNum(e.start_ns) && isNum(o) ? (e.start_ns - o) / 1e6 : null,
            dur_ns: e.dur_ns, step: e.step, rank: e.rank, detail: e.detail };
        }), { sortKey: null });
      }
      if (f.recommendations.length) {
        add(body, el('h4', null, 'What to do'));
        var ul = add(body, el('ul'));
        f.recommendations.forEach(function (r) { add(ul, el('li', null, r)); });
      }
      f.notes.concat(f.caveats).forEach(function (c) { add(body, el('p', 'caveat', c)); });
    });

    var fx = section(app, 'Fixes, in ' + dg.scenario + ' order', dg.scenario_reason);
    var ol = add(fx, el('ol', 'fixes'));
    dg.fixes.forEach(function (f) {
      var li = add(ol, el('li'));
      add(li, el('span', null, f.text));
      add(li, el('span', 'muted', ' — ' + f.finding_id + (isNum(f.lost_step_ratio) ? ', ≤ ' + fmtPct(f.lost_step_ratio) : '')));
    });
    if (!dg.fixes.length) add(fx, el('p', 'muted', 'Nothing to fix.'));
    if (dg.caveats.length) {
      add(fx, el('h3', null, 'Caveats'));
      var cu = add(fx, el('ul', 'caveats'));
      dg.caveats.forEach(function (c) { add(cu, el('li', null, c)); });
    }
  }

  // ---- measured kernels (Nsight Compute) ----
  data.traces.forEach(function (t) {
    var m = t.measured_kernels;
    if (!m || !m.groups.length) return;
    var ms = section(app, 'Kernels measured (ncu): bound by speed of light',
      m.untimed ? m.kernels + ' launches profiled one at a time by Nsight Compute (no timeline). All figures measured (ncu); est. occupancy is estimated (launch config).'
                : m.matched_kernels + ' of ' + m.kernels + ' trace kernels matched a profiled kernel (demangled name + launch config). Figures measured (ncu); est. occupancy estimated (launch config).');
    function pct(v) { return isNum(v) ? v.toFixed(0) + '%' : 'n/a'; }
    table(ms, [
      { key: 'name', label: 'kernel', title: true },
      { key: 'bound', label: 'bound' },
      { key: 'sm_pct', label: 'SM (measured)', num: true, fmt: pct },
      { key: 'mem_pct', label: 'memory (measured)', num: true, fmt: pct },
      { key: 'dram_pct', label: 'DRAM (measured)', num: true, fmt: pct },
      { key: 'achieved_pct', label: 'occupancy (measured)', num: true, fmt: pct },
      { key: 'theoretical_pct', label: 'theoretical (measured)', num: true, fmt: pct },
      { key: 'est_occupancy_pct', label: 'occupancy (estimated, launch config)', num: true, fmt: pct },
      { key: 'time_share', label: 'kernel time', num: true, fmt: function (v) { return fmtPct(v); } },
      { key: 'config', label: 'grid x block' },
      { key: 'rules', label: 'ncu rules (est. speedup)' }
    ], m.groups, { sortKey: 'time_share' });
  });

  // ---- ranks ----
  if (data.ranks.length) {
    var rs = section(app, 'Ranks: step time and idle per step',
      'Per rank, the primary GPU (most kernel time): compute, communication and idle per step. The straggler is the rank the diagnosis named.');
    var maxStep = 0;
    data.ranks.forEach(function (r) { if (isNum(r.step_ms)) maxStep = Math.max(maxStep, r.step_ms); });
    var rows = add(rs, el('div', 'rank-rows'));
    data.ranks.forEach(function (r) {
      var row = add(rows, el('div', 'rank-row' + (r.straggler ? ' straggler' : '')));
      add(row, el('span', 'rank-label', 'rank ' + r.rank + (r.straggler ? ' ◀ straggler' : '')));
      var track = add(row, el('span', 'rank-track'));
      [['compute_ms', C.compute], ['comm_ms', C.comm], ['idle_ms', C.causes[4]]].forEach(function (p) {
        var seg = add(track, el('span', 'seg'));
        seg.style.width = (maxStep > 0 && isNum(r[p[0]]) ? Math.max(0, r[p[0]] / maxStep * 100) : 0) + '%';
        seg.style.background = p[1];
        seg.title = p[0].replace('_ms', '') + ' ' + (isNum(r[p[0]]) ? r[p[0]].toFixed(2) + ' ms' : 'n/a');
      });
      add(row, el('span', 'rank-num', isNum(r.step_ms) ? r.step_ms.toFixed(2) + ' ms/step' : 'n/a'));
    });
    var legend = add(rs, el('div', 'legend'));
    [['compute', C.compute], ['communication', C.comm], ['idle', C.causes[4]]].forEach(function (p) {
      var s = add(legend, el('span', 'key'));
      add(s, el('span', 'swatch')).style.background = p[1];
      add(s, el('span', null, p[0]));
    });
    var rx = data.ranks.map(function (r, i) { return i; });
    var stepS = data.ranks.map(function (r) { return r.step_ms; });
    var idleS = data.ranks.map(function (r) { return r.idle_ms; });
    makeChart(rs, {
      height: 220,
      title: 'step time and idle per step by rank (ms)',
      scales: { x: { time: false, range: [-0.6, data.ranks.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } } },
      axes: [{ label: 'rank', values: function (u, v) { return v.map(function (i) { var r = data.ranks[Math.round(i)]; return r && Math.abs(i - Math.round(i)) < 1e-9 ? String(r.rank) + (r.straggler ? '*' : '') : ''; }); }, splits: function () { return rx; } },
        { label: 'ms', size: 56 }],
      series: [{ label: 'rank' },
        { label: 'step time', stroke: C.compute, fill: alpha(C.compute, 0.35), paths: uPlot.paths.bars({ size: [0.7, 60], align: 0 }), points: { show: false } },
        { label: 'idle', stroke: C.causes[0], fill: alpha(C.causes[0], 0.8), paths: uPlot.paths.bars({ size: [0.35, 30], align: 0 }), points: { show: false } }]
    }, [rx, stepS, idleS]);
  }

  // ---- per device ----
  data.traces.forEach(function (t, ti) {
    t.devices.forEach(function (d, di) {
      var multi = data.traces.length > 1;
      var host = multi ? add(app, el('details', 'device-block')) : app;
      if (multi) {
        if (ti === 0 && di === 0) host.open = true;
        add(host, el('summary', 'device-summary', 'rank ' + (t.rank != null ? t.rank : ti) + ' · ' + t.path + ' · ' + (d.noun || 'GPU') + ' ' + d.id));
      }
      renderDevice(host, t, d);
    });
  });

  function renderDevice(host, t, d) {
    var title = (d.noun || 'GPU') + ' ' + d.id + (d.name ? ' — ' + d.name : '') + (data.traces.length > 1 ? ' (' + t.path + ')' : '');
    var sec = section(host, title, d.verdict ? 'Curve class ' + d.verdict + (d.verdict_window ? ' over the ' + d.verdict_window : '') + (d.verdict_reason ? ': ' + d.verdict_reason : '') : null);
    if (d.aliasing_note) add(sec, el('p', 'caveat', d.aliasing_note));

    // Surface vs real.
    if (d.bars.length) {
      add(sec, el('h3', null, 'Surface vs real utilization' + (isNum(d.gap_pp) ? ' (gap ' + d.gap_pp.toFixed(1) + ' pp)' : '')));
      var bars = add(sec, el('div', 'bars'));
      d.bars.forEach(function (b) {
        var row = add(bars, el('div', 'bar-row ' + b.kind));
        add(row, el('span', 'bar-label', b.label));
        var track = add(row, el('span', 'bar-track'));
        var fill = add(track, el('span', 'bar-fill'));
        fill.style.width = Math.max(0, Math.min(100, b.value * 100)) + '%';
        add(row, el('span', 'bar-value', fmtPct(b.value)));
        add(row, el('span', 'bar-source muted', b.source));
      });
      if (d.throughput_note) add(sec, el('p', 'muted', 'MFU: ' + d.throughput_note));
    }

    var group = syncGroup();
    var starts = d.step_starts_s;
    function common(extra) {
      var o = {
        scales: { x: { time: false } },
        cursor: { sync: { key: 'dev' + t.path + d.id }, drag: { x: true, y: false } },
        hooks: { draw: [stepMarks(starts)], setScale: [group.hook] },
        plugins: [wheelPanPlugin()],
        legend: { live: true }
      };
      for (var k in extra) o[k] = extra[k];
      return o;
    }

    // The curve: what ran and why it was idle, stacked per bin.
    if (d.curve) {
      add(sec, el('h3', null, 'Where the GPU time goes (idle coloured by cause)'));
      add(sec, el('p', 'hint', 'Share of each ' + fmtDur(d.curve.bin_s * 1e9) + ' bin. Dashed lines: step starts. Wheel: zoom · drag: select · shift+drag: pan · double-click: reset.'));
      var cv = d.curve, n = cv.compute.length;
      var parts = [['compute', cv.compute, C.compute], ['communication', cv.comm, C.comm], ['copies', cv.copy, C.copy]];
      cv.idle.forEach(function (arr, k) { parts.push(['idle: ' + causes[k], arr, C.causes[k]]); });
      // Drop all-zero parts; stack the rest (drawn top first so lower ones paint over).
      parts = parts.filter(function (p) { return p[1].some(function (v) { return v > 0; }); });
      var cum = [], acc = new Array(n).fill(0);
      parts.forEach(function (p) {
        acc = acc.map(function (a, i) { var v = p[1][i]; return v == null ? a : a + v; });
        cum.push(acc.slice());
      });
      var xs = timeXs(cv.start_s, cv.bin_s, n);
      var series = [{ label: 's', value: function (u, v) { return v == null ? '-' : v.toFixed(6) + ' s'; } }];
      var dat = [xs];
      for (var k = parts.length - 1; k >= 0; k--) {
        (function (p) {
          series.push({ label: p[0], stroke: p[2], fill: p[2], width: 0,
            paths: uPlot.paths.stepped({ align: 1 }), points: { show: false },
            value: function (u, v, si, idx) { var r = idx == null ? null : p[1][idx]; return r == null ? '-' : fmtPct(r); } });
        })(parts[k]);
        dat.push(cum[k]);
      }
      group.add(makeChart(sec, common({ height: 280, series: series,
        scales: { x: { time: false }, y: { range: [0, 1] } }, axes: [secAxis(), pctAxis('share of bin')] }), dat));
    }

    // Surface utilization at three resolutions.
    if (d.util.length) {
      add(sec, el('h3', null, 'GPU-Util as NVML would report it: fine, 1/6 s and per step'));
      add(sec, el('p', 'hint', 'Share of each period with a kernel running. The shaded band is the min–max of the fine series where it was reduced to fit the page.'));
      var tables = [], ser = [{ label: 's', value: function (u, v) { return v == null ? '-' : v.toFixed(6) + ' s'; } }], bands = [];
      var names = { 'fine': 'fine', 'nvml_1/6s': 'NVML 1/6 s', 'step': 'per step' };
      d.util.forEach(function (e, i) {
        var xs2 = e.label === 'step' && !e.reduced && starts.length === e.mean.length
          ? starts.slice() : timeXs(e.start_s, e.bin_s, e.mean.length);
        var col = C.util[i % C.util.length];
        var label = (names[e.label] || e.label) + ' (' + fmtDur(e.source_period_s * 1e9) + (e.reduced ? ', reduced to ' + fmtDur(e.bin_s * 1e9) : '') + ')';
        if (e.reduced && e.label === 'fine') {
          tables.push([xs2, e.max]);
          ser.push({ label: label + ' max', stroke: alpha(col, 0.25), width: 1, points: { show: false }, paths: uPlot.paths.stepped({ align: 1 }) });
          tables.push([xs2, e.min]);
          ser.push({ label: label + ' min', stroke: alpha(col, 0.25), width: 1, points: { show: false }, paths: uPlot.paths.stepped({ align: 1 }) });
          bands.push({ series: [ser.length - 2, ser.length - 1], fill: alpha(col, 0.12) });
        }
        tables.push([xs2, e.mean]);
        ser.push({ label: label, stroke: col, width: e.label === 'fine' ? 1 : 2, points: { show: false },
          paths: uPlot.paths.stepped({ align: 1 }), spanGaps: false });
      });
      var joined = uPlot.join(tables);
      ser.forEach(function (s, i) { if (i > 0) s.spanGaps = true; });
      var o = common({ height: 240, series: ser, scales: { x: { time: false }, y: { range: [0, 1] } }, axes: [secAxis(), pctAxis('GPU-Util')] });
      if (bands.length) o.bands = bands;
      group.add(makeChart(sec, o, joined));
    }

    // Counters (nvidia-smi, DCGM, recordings): GPU-Util and SM activity on one chart.
    var untimed = d.counters.filter(function (e) { return e.untimed && e.unit === 'ratio'; });
    var ratioCounters = d.counters.filter(function (e) { return !e.untimed && e.unit === 'ratio'; });
    if (ratioCounters.length) {
      add(sec, el('h3', null, 'Sampled counters: GPU-Util vs SM activity'));
      add(sec, el('p', 'hint', 'From ' + Array.from(new Set(ratioCounters.map(function (e) { return e.source; }))).join(', ') + '. GPU-Util says a kernel ran; SM active says how much of the GPU it used.'));
      var ct = [], cs = [{ label: 's', value: function (u, v) { return v == null ? '-' : v.toFixed(3) + ' s'; } }];
      var pretty = { gpu_util: 'GPU-Util', sm_active: 'SM active', sm_occupancy: 'SM occupancy',
        tensor_active: 'tensor active', dram_active: 'DRAM active', mem_util: 'memory util', gr_engine_active: 'GR engine active' };
      ratioCounters.forEach(function (e, i) {
        ct.push([timeXs(e.start_s, e.bin_s, e.mean.length), e.mean]);
        cs.push({ label: (pretty[e.label] || e.label) + (e.reduced ? ' (mean per ' + fmtDur(e.bin_s * 1e9) + ')' : ''), stroke: C.counter[i % C.counter.length],
          width: e.label === 'gpu_util' ? 2 : 1.5, points: { show: false }, spanGaps: true });
      });
      group.add(makeChart(sec, common({ height: 240, series: cs, scales: { x: { time: false }, y: { range: [0, 1] } }, axes: [secAxis(), pctAxis('')] }), uPlot.join(ct)));
    }

    // Logs without timestamps (a table printed in a loop, dmon without -o T): by sample.
    if (untimed.length) {
      add(sec, el('h3', null, 'Sampled counters by sample number (the log has no timestamps)'));
      var ut = [], us = [{ label: 'sample', value: function (u, v) { return v == null ? '-' : String(Math.round(v)); } }];
      untimed.forEach(function (e, i) {
        ut.push([timeXs(e.start_s, e.bin_s, e.mean.length), e.mean]);
        us.push({ label: e.label + (e.reduced ? ' (mean per ' + e.bin_s + ' samples)' : ''),
          stroke: C.counter[i % C.counter.length], width: 1.5, points: { show: false }, spanGaps: true });
      });
      makeChart(sec, { height: 220, series: us, plugins: [wheelPanPlugin()],
        scales: { x: { time: false }, y: { range: [0, 1] } },
        axes: [{ label: 'sample #' }, pctAxis('')] }, uPlot.join(ut));
    }

    // Power and SM clock (throttling), when sampled.
    var pw = d.counters.filter(function (e) { return !e.untimed && (e.unit === 'mW' || e.unit === 'MHz'); });
    if (pw.length) {
      add(sec, el('h3', null, 'Sampled counters: power and SM clock'));
      var pt = [], ps = [{ label: 's', value: function (u, v) { return v == null ? '-' : v.toFixed(3) + ' s'; } }];
      var pnames = { power: 'power (W)', power_limit: 'power limit (W)', sm_clock: 'SM clock (MHz)' };
      pw.forEach(function (e, i) {
        var w = e.unit === 'mW';
        pt.push([timeXs(e.start_s, e.bin_s, e.mean.length), e.mean.map(function (v) { return v == null ? null : (w ? v / 1000 : v); })]);
        var sr = { label: pnames[e.label] || e.label, scale: w ? 'W' : 'MHz', stroke: C.counter[(i + 1) % C.counter.length],
          width: 1.5, points: { show: false }, spanGaps: true };
        if (e.label === 'power_limit') sr.dash = [6, 4];
        ps.push(sr);
      });
      var zero = function (u, lo, hi) { return [0, hi > 0 ? hi * 1.1 : 1]; };
      var axes = [secAxis()];
      if (pw.some(function (e) { return e.unit === 'mW'; })) axes.push({ scale: 'W', label: 'W', size: 56 });
      if (pw.some(function (e) { return e.unit === 'MHz'; })) axes.push({ scale: 'MHz', side: 1, label: 'MHz', size: 64, grid: { show: false } });
      group.add(makeChart(sec, common({ height: 200, series: ps,
        scales: { x: { time: false }, W: { range: zero }, MHz: { range: zero } }, axes: axes }),
        uPlot.join(pt)));
    }

    // Per-step stacked time.
    var st = d.steps;
    if (st && st.step.length) {
      add(sec, el('h3', null, 'Per-step time: compute, communication, copies, idle by cause' + (d.steps_total > st.step.length ? ' (first ' + st.step.length + ' of ' + d.steps_total + ' steps)' : '')));
      if (!d.steps_from_markers) add(sec, el('p', 'hint', 'No step markers: one window covers the GPU-op span.'));
      var sp = [['compute', st.compute_ms, C.compute], ['communication', st.comm_ms, C.comm], ['copies', st.copy_ms, C.copy]];
      st.idle_ms.forEach(function (a, k) { sp.push(['idle: ' + causes[k], a, C.causes[k]]); });
      sp = sp.filter(function (p) { return p[1].some(function (v) { return v > 0; }); });
      var sx = st.step.map(function (s, i) { return i; });
      var sacc = new Array(sx.length).fill(0), scum = [];
      sp.forEach(function (p) { sacc = sacc.map(function (a, i) { return a + (p[1][i] || 0); }); scum.push(sacc.slice()); });
      var sser = [{ label: 'step', value: function (u, v) { return v == null ? '-' : String(st.step[Math.round(v)]); } }], sdat = [sx];
      for (var q = sp.length - 1; q >= 0; q--) {
        (function (p) {
          sser.push({ label: p[0], stroke: p[2], fill: p[2], width: 0, points: { show: false },
            paths: uPlot.paths.bars({ size: [0.85, 80], align: 0 }),
            value: function (u, v, si, idx) { var r = idx == null ? null : p[1][idx]; return r == null ? '-' : r.toFixed(3) + ' ms'; } });
        })(sp[q]);
        sdat.push(scum[q]);
      }
      makeChart(add(sec, el('div')), {
        height: 240, series: sser, plugins: [wheelPanPlugin()],
        scales: { x: { time: false, range: [-0.6, sx.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } } },
        axes: [{ label: 'step', values: function (u, v) { return v.map(function (i) { var s = st.step[Math.round(i)]; return s == null || Math.abs(i - Math.round(i)) > 1e-9 ? '' : String(s); }); } },
          { label: 'ms', size: 56 }]
      }, sdat);
    }

    // Kernel durations.
    var h = d.hist;
    if (h && h.count.length) {
      add(sec, el('h3', null, 'Kernel durations'));
      var k0 = d.kernels || {};
      add(sec, el('p', 'hint', fmtInt(k0.count) + ' kernels, ' + fmtInt(k0.distinct) + ' names, median ' + fmtDur(k0.p50_ns) + '. Bars: kernels per duration bin; line: their summed time.'));
      var hx = h.count.map(function (c, i) { return i; });
      var totMs = h.total_ns.map(function (v) { return v / 1e6; });
      function binLabel(i) {
        var lo = h.edges_ns[i], hi = h.edges_ns[i + 1];
        return fmtDur(lo) + (hi != null ? '–' + fmtDur(hi) : '+');
      }
      makeChart(add(sec, el('div')), {
        height: 220,
        scales: { x: { time: false, range: [-0.6, hx.length - 0.4] }, y: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } },
          ms: { range: function (u, lo, hi) { return [0, hi > 0 ? hi * 1.05 : 1]; } } },
        axes: [{ label: 'kernel duration', values: function (u, v) { return v.map(function (i) { return Math.abs(i - Math.round(i)) > 1e-9 || h.edges_ns[Math.round(i)] == null ? '' : fmtDur(h.edges_ns[Math.round(i)]); }); } },
          { label: 'kernels', size: 60 },
          { scale: 'ms', side: 1, label: 'summed ms', size: 60, grid: { show: false } }],
        series: [{ label: 'bin', value: function (u, v) { return v == null ? '-' : binLabel(Math.round(v)); } },
          { label: 'kernels', stroke: C.compute, fill: alpha(C.compute, 0.5), paths: uPlot.paths.bars({ size: [0.9, 60], align: 0 }), points: { show: false } },
          { label: 'summed time (ms)', scale: 'ms', stroke: C.causes[0], width: 2 }]
      }, [hx, h.count, totMs]);
    }
    if (d.kernels && d.kernels.top.length) {
      add(sec, el('h3', null, 'Top kernels by time'));
      var krows = d.kernels.top.map(function (k) { return k; });
      if (d.kernels.other_count > 0) krows.push({ name: '(other kernels)', 'class': '', count: d.kernels.other_count, total_ns: d.kernels.other_total_ns, mean_ns: null, max_ns: null, ratio: null, _cls: 'muted', _pin: true });
      table(sec, [
        { key: 'name', label: 'kernel', cls: 'name', title: true },
        { key: 'class', label: 'class' },
        { key: 'count', label: 'count', num: true, fmt: fmtInt },
        { key: 'total_ns', label: 'total', num: true, fmt: fmtDur },
        { key: 'ratio', label: 'share', num: true, fmt: function (v) { return v == null ? '' : fmtPct(v); } },
        { key: 'mean_ns', label: 'mean', num: true, fmt: fmtDur },
        { key: 'max_ns', label: 'max', num: true, fmt: fmtDur }
      ], krows, { sortKey: 'total_ns' });
    }
    if (d.copies && d.copies.length) {
      add(sec, el('h3', null, 'Copies and memsets'));
      table(sec, [
        { key: 'kind', label: 'kind' }, { key: 'src', label: 'from' }, { key: 'dst', label: 'to' },
        { key: 'count', label: 'count', num: true, fmt: fmtInt },
        { key: 'bytes', label: 'bytes', num: true, fmt: fmtBytes },
        { key: 'total_ns', label: 'time', num: true, fmt: fmtDur },
        { key: 'gbps', label: 'GB/s', num: true, fmt: function (v) { return isNum(v) ? v.toFixed(2) : 'n/a'; } }
      ], d.copies, { sortKey: 'total_ns' });
    }
    if (d.syncs && d.syncs.length) {
      add(sec, el('h3', null, 'Sync calls'));
      table(sec, [
        { key: 'name', label: 'call', cls: 'name' }, { key: 'class', label: 'class' },
        { key: 'blocking', label: 'blocks host', fmt: function (v) { return v ? 'yes' : 'no'; } },
        { key: 'count', label: 'count', num: true, fmt: fmtInt },
        { key: 'total_ns', label: 'time', num: true, fmt: fmtDur },
        { key: 'max_ns', label: 'max', num: true, fmt: fmtDur }
      ], d.syncs, { sortKey: 'total_ns' });
    }
  }

  var foot = add(app, el('footer', 'muted', 'gpuwhy ' + data.tool_version + ' · charts: uPlot ' + data.uplot_version + ' (MIT, embedded) · this page makes no network request'));
  foot.setAttribute('role', 'contentinfo');

  // ---- self-check for the browser tests: count charts with pixels drawn ----
  function checkCharts() {
    var drawn = 0;
    charts.forEach(function (u) {
      var cv = u.ctx && u.ctx.canvas;
      if (!cv || !cv.width || !cv.height) return;
      var px = u.ctx.getImageData(0, 0, cv.width, cv.height).data;
      for (var i = 3; i < px.length; i += 64) if (px[i] !== 0) { drawn++; return; }
    });
    document.documentElement.setAttribute('data-charts', String(charts.length));
    document.documentElement.setAttribute('data-charts-drawn', String(drawn));
  }
  // selfTest (only with ?selftest in the URL, for the browser tests): wheel zoom
  // on a chart moves its device's other charts, a header click sorts a table;
  // then the page is put back as it was. Result in data-selftest.
  function selfTest() {
    var out = [], pending = 1;
    function done() {
      if (--pending === 0) document.documentElement.setAttribute('data-selftest', out.join(','));
    }
    try {
      var grouped = charts.filter(function (u) { return u._synced; });
      var a = grouped[0], b = null;
      for (var i = 1; a && i < grouped.length; i++)
        if (grouped[i]._synced === a._synced) { b = grouped[i]; break; }
      if (a) {
        var x0 = a.scales.x.min, x1 = a.scales.x.max, r = a.over.getBoundingClientRect();
        a.over.dispatchEvent(new WheelEvent('wheel', { deltaY: -100, clientX: r.left + r.width / 2,
          clientY: r.top + 5, bubbles: true, cancelable: true }));
        // uPlot applies scale changes in a microtask: look after it.
        pending++;
        setTimeout(function () {
          out.push(a.scales.x.max - a.scales.x.min < (x1 - x0) * 0.9 ? 'zoom' : 'nozoom');
          if (b) out.push(Math.abs(b.scales.x.min - a.scales.x.min) < 1e-9 &&
            Math.abs(b.scales.x.max - a.scales.x.max) < 1e-9 ? 'sync' : 'nosync');
          a.setScale('x', { min: x0, max: x1 });
          done();
        }, 20);
      }
      // The sorted column of the first table: one click reverses it, a second restores it.
      var th = document.querySelector('table.sortable th[aria-sort="descending"], table.sortable th[aria-sort="ascending"]');
      if (th) {
        var tb = th.closest('table').tBodies[0], col = th.cellIndex;
        var first = function () { return tb.rows.length ? tb.rows[0].cells[col].textContent : ''; };
        var was = th.getAttribute('aria-sort'), top0 = first();
        th.click();
        var flipped = th.getAttribute('aria-sort') !== was && (tb.rows.length < 2 || first() !== top0 ||
          tb.rows[0].cells[col].textContent === tb.rows[tb.rows.length - 1].cells[col].textContent);
        th.click();
        out.push(flipped && th.getAttribute('aria-sort') === was && first() === top0 ? 'sort' : 'nosort');
      }
    } catch (e) {
      out.push('error:' + e.message);
    }
    done();
  }
  setTimeout(function () {
    checkCharts();
    if (/[?&]selftest\b/.test(location.search)) selfTest();
  }, 50);
})();
