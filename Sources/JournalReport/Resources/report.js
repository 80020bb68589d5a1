(function () {
  'use strict';
  var errorCount = 0;
  function reportError(message) {
    errorCount += 1;
    document.body.setAttribute('data-js-errors', String(errorCount));
    var box = document.getElementById('js-errors');
    if (box) {
      box.hidden = false;
      var item = document.createElement('li');
      item.textContent = String(message);
      box.querySelector('ul').appendChild(item);
    }
  }
  window.addEventListener('error', function (event) {
    reportError((event.message || 'error') + ' (line ' + (event.lineno || '?') + ')');
  });

  var SVGNS = 'http://www.w3.org/2000/svg';
  var LABEL_W = 270, ROW_H = 16, CHANNEL_H = 20, GROUP_GAP = 6, AXIS_H = 26, RIGHT_PAD = 12;
  var PACK_LANES = 400, MAX_SCOPE_ROWS = 30, HOVER_PX = 4;
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var layout = data.layout;
  var FLAG = layout.flags;
  var KIND = {};
  layout.kinds.forEach(function (kind, code) { KIND[kind.name] = code; });
  var ENDS = layout.ends;

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVGNS, name);
    if (attrs) { for (var key in attrs) { node.setAttribute(key, attrs[key]); } }
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function text(parent, x, y, content, cls, clip) {
    var node = el('text', { x: x, y: y }, parent);
    if (clip) { node.setAttribute('clip-path', clip); }
    if (cls) { node.setAttribute('class', cls); }
    node.textContent = content;
    return node;
  }
  function cut(value, limit) { return value.length > limit ? value.slice(0, limit - 1) + '\u2026' : value; }
  function fmtTime(us, step) {
    var sign = us < 0 ? '-' : '+';
    var abs = Math.abs(us);
    if ((step || abs) >= 1e6) { return sign + (abs / 1e6).toFixed(step && step < 1e5 ? 3 : 2) + ' s'; }
    var digits = step === undefined ? 3 : (step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3);
    return sign + (abs / 1000).toFixed(digits) + ' ms';
  }
  function fmtDuration(us) { return us >= 1e6 ? (us / 1e6).toFixed(3) + ' s' : (us / 1000).toFixed(3) + ' ms'; }

  // MARK: - Decoding

  function decode(session) {
    var n = session.rows, a = session.ev;
    var names = ['kind', 'thread', 'flags'];
    layout.kinds.forEach(function (kind) {
      kind.fields.forEach(function (field) { if (names.indexOf(field) < 0) { names.push(field); } });
    });
    var cols = { seq: new Float64Array(n), t: new Float64Array(n), p: new Float64Array(n) };
    names.forEach(function (name) { cols[name] = new Int32Array(n); });
    var fieldsOf = layout.kinds.map(function (kind) { return kind.fields; });
    var i = 0, seq = 0, t = 0;
    for (var row = 0; row < n; row++) {
      var kind = a[i++];
      cols.kind[row] = kind;
      seq += a[i++]; cols.seq[row] = seq;
      t += a[i++]; cols.t[row] = t;
      cols.thread[row] = a[i++];
      cols.flags[row] = a[i++];
      var fields = fieldsOf[kind];
      for (var f = 0; f < fields.length; f++) { cols[fields[f]][row] = a[i++]; }
    }
    if (i !== a.length) { throw new Error('event data does not match its layout'); }
    var s = session.strings;
    var model = {
      meta: session.meta, cols: cols, rows: n, endUs: Math.max(session.meta.endUs, n ? cols.t[n - 1] : 0, 1),
      str: function (index) { return index > 0 ? s[index - 1] : ''; },
      threads: session.threads,
      channels: session.channels.map(function (c, index) {
        return { index: index, id: c[0], name: s[c[1] - 1] || '?', single: c[2] === 1, rows: [], lanes: [] };
      }),
      scopes: session.scopes.map(function (c, index) {
        return { index: index, id: c[0], name: s[c[1] - 1] || '?', began: c[2], ended: c[3] };
      }),
      sessionRows: []
    };
    model.lanes = session.lanes.map(function (l, index) {
      var lane = {
        index: index, id: l[0], channel: l[1], owner: model.str(l[2]), site: model.str(l[3]), fn: model.str(l[4]),
        options: model.str(l[5]), queue: model.str(l[6]), expectsMain: l[7] === 1, scope: l[8], start: l[9], end: l[10],
        ending: ENDS[l[11]], reason: model.str(l[12]), rows: [], missed: []
      };
      model.channels[lane.channel].lanes.push(lane);
      return lane;
    });
    // Changes a replaced registration missed (the what-if multicast answer), per lane.
    for (var m = 0; m + 1 < (session.missed || []).length; m += 2) {
      model.lanes[session.missed[m + 1]].missed.push(session.missed[m]);
    }
    model.unheard = session.unheard || [];
    // A summarised session: per channel, counts per range of sequence numbers.
    model.density = session.density || null;
    model.densityByChannel = {};
    if (model.density) {
      model.density.channels.forEach(function (entry) {
        var max = 1;
        for (var b = 0; b < model.density.bins; b++) { max = Math.max(max, entry[1][b] + entry[2][b]); }
        model.densityByChannel[entry[0]] = { changes: entry[1], deliveries: entry[2], problems: entry[3], max: max };
      });
    }
    for (var r = 0; r < n; r++) {
      var k = cols.kind[r];
      if (k === KIND.delivered || k === KIND.skipped) {
        if (cols.lane[r] > 0) { model.lanes[cols.lane[r] - 1].rows.push(r); }
      } else if (k === KIND.changed || k === KIND.removeUnregistered) {
        if (cols.channel[r] > 0) { model.channels[cols.channel[r] - 1].rows.push(r); } else { model.sessionRows.push(r); }
      } else if (k === KIND.gap || k === KIND.unknown) {
        model.sessionRows.push(r);
      }
    }
    setAxis(model, chooseAxis(model));
    return model;
  }

  // MARK: - Horizontal axis

  // Order matters more than duration in most sessions a person reads: up to ORDER_ROWS
  // events (each gets a column of its own on a screen) the order axis is chosen. Longer
  // sessions get it too when their events are crowded into bursts (a real session: setup,
  // then everything within milliseconds): when the largest twentieth of the gaps between
  // events makes up more than half the span. Otherwise time.
  var ORDER_ROWS = 1000;
  function chooseAxis(model) {
    var n = model.rows, t = model.cols.t;
    if (model.density || n <= ORDER_ROWS) { return 'order'; }
    var span = t[n - 1] - t[0];
    if (!(span > 0)) { return 'order'; }
    var gaps = new Float64Array(n - 1);
    for (var i = 1; i < n; i++) { gaps[i - 1] = Math.max(0, t[i] - t[i - 1]); }
    gaps.sort();
    var top = Math.max(1, Math.floor(gaps.length / 20)), sum = 0;
    for (var g = gaps.length - top; g < gaps.length; g++) { sum += gaps[g]; }
    return sum > span / 2 ? 'order' : 'time';
  }

  // Positions along the chart: the row number (order axis, one column per event) or the
  // recorded time in microseconds. Everything drawn reads `cols.p`, `startP` and `endP`;
  // tooltips keep reading the times.
  function setAxis(model, axis) {
    var cols = model.cols, n = model.rows;
    model.axis = axis;
    // Summarised: only some events are rows, so the order axis goes by sequence number.
    var bySeq = !!model.density;
    for (var r = 0; r < n; r++) { cols.p[r] = axis === 'order' ? (bySeq ? cols.seq[r] - 0.5 : r + 0.5) : cols.t[r]; }
    if (bySeq) {
      model.lo = 0;
      model.hi = Math.max(model.density.lastSeq, 1);
      model.endP = model.hi;
    } else if (axis === 'order') {
      model.lo = 0;
      model.hi = Math.max(n, 1);
      model.endP = model.hi;
    } else {
      var first = n ? cols.t[0] : 0, last = n ? cols.t[n - 1] : 0;
      // The first to the last event, not the session's start: setup before the first
      // event would otherwise push everything to the right edge.
      var pad = Math.max((last - first) * 0.02, 1);
      model.lo = Math.max(0, first - pad);
      model.hi = Math.max(Math.min(last + pad, model.endUs), last + 1e-3);
      model.endP = Math.max(model.hi, model.endUs);
    }
    model.lanes.forEach(function (lane) {
      lane.startP = cols.p[lane.start];
      lane.endP = lane.end >= 0 ? cols.p[lane.end] : model.hi;
    });
    model.scopes.forEach(function (scope) {
      scope.startP = scope.began >= 0 ? cols.p[scope.began] : model.lo;
      scope.endP = scope.ended >= 0 ? cols.p[scope.ended] : model.hi;
    });
    function byPosition(x, y) { return cols.p[x] - cols.p[y] || x - y; }
    model.lanes.forEach(function (lane) { lane.rows.sort(byPosition); lane.missed.sort(byPosition); });
    model.channels.forEach(function (channel) { channel.rows.sort(byPosition); });
    model.sessionRows.sort(byPosition);
    model.unheard.sort(byPosition);
    model.unheardByChannel = {};
    model.unheard.forEach(function (r) {
      var c = cols.channel[r] - 1;
      (model.unheardByChannel[c] || (model.unheardByChannel[c] = [])).push(r);
    });
  }

  // MARK: - Vertical layout

  // Packing goes by rows, so it holds on either axis; a lane reaches to its last missed change.
  function lastRow(lane) {
    var end = lane.end >= 0 ? lane.end : Infinity;
    return lane.missed.length ? Math.max(end, lane.missed[lane.missed.length - 1]) : end;
  }
  function pack(items) {
    var rows = [];
    items.forEach(function (item) {
      for (var i = 0; i < rows.length; i++) {
        if (rows[i].end < item.start) { rows[i].items.push(item); rows[i].end = lastRow(item); return; }
      }
      rows.push({ items: [item], end: lastRow(item) });
    });
    return rows.map(function (row) { return row.items; });
  }

  function arrange(model) {
    var rows = [], y = 0;
    function add(type, height, payload) {
      var row = { type: type, y: y, h: height };
      for (var key in payload) { row[key] = payload[key]; }
      rows.push(row);
      y += height;
      return row;
    }
    var session = add('session', CHANNEL_H, {});
    if (model.scopes.length > MAX_SCOPE_ROWS) {
      // Too many to draw one by one: one row of their beginnings and ends.
      var summary = add('scopes', ROW_H, {});
      model.scopes.forEach(function (scope) { scope.row = summary; });
    } else {
      model.scopes.forEach(function (scope) { scope.row = add('scope', ROW_H, { scope: scope }); });
    }
    model.scopeRows = [];
    for (var r = 0; r < model.rows; r++) {
      var kind = model.cols.kind[r];
      if (kind === KIND.scopeBegan || kind === KIND.scopeEnded) { model.scopeRows.push(r); }
    }
    session.scopeCount = model.scopes.length;
    model.packed = model.lanes.length > PACK_LANES;
    model.channels.forEach(function (channel) {
      y += GROUP_GAP;
      channel.row = add('channel', CHANNEL_H, { channel: channel });
      var groups = model.packed ? pack(channel.lanes) : channel.lanes.map(function (lane) { return [lane]; });
      groups.forEach(function (lanes) {
        var row = add('lane', ROW_H, { lanes: lanes });
        lanes.forEach(function (lane) { lane.row = row; });
      });
    });
    model.rowsLayout = rows;
    model.height = y + 4;
  }

  // MARK: - Drawing

  function Timeline(section, model) {
    this.section = section;
    this.model = model;
    this.axis = section.querySelector('svg.axis');
    this.svg = section.querySelector('svg.chart');
    this.scroll = section.querySelector('.chart-scroll');
    this.rangeLabel = section.querySelector('.range');
    this.t0 = model.lo;
    this.t1 = model.hi;
    this.selection = null;
    this.history = [];
    this.flagged = {};
    var self = this;
    section.querySelectorAll('li.finding').forEach(function (item) {
      (item.getAttribute('data-lanes') || '').split(' ').forEach(function (lane) { if (lane) { self.flagged[lane] = true; } });
    });
    arrange(model);
    this.bind();
  }

  Timeline.prototype.width = function () {
    return Math.max(480, this.scroll.clientWidth - LABEL_W - RIGHT_PAD - 2);
  };
  Timeline.prototype.x = function (t) { return LABEL_W + (t - this.t0) * this.scale; };
  Timeline.prototype.timeAt = function (x) { return this.t0 + (x - LABEL_W) / this.scale; };

  Timeline.prototype.render = function () {
    var model = this.model, cols = model.cols, self = this;
    var w = this.width();
    this.scale = w / Math.max(this.t1 - this.t0, 1e-3);
    var fullWidth = LABEL_W + w + RIGHT_PAD;
    this.svg.textContent = '';
    this.svg.setAttribute('width', fullWidth);
    this.svg.setAttribute('height', model.height);
    // Labels are clipped to their column so a long one never runs into the chart.
    var defs = el('defs', null, this.svg);
    var clip = el('clipPath', { id: 'labels-' + model.meta.id }, defs);
    el('rect', { x: 0, y: 0, width: LABEL_W - 8, height: model.height }, clip);
    this.clip = 'url(#labels-' + model.meta.id + ')';
    // Diagonal hatching: a registration still live after the scope it was declared in ended.
    var hatch = el('pattern', { id: 'hatch-' + model.meta.id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' }, defs);
    el('rect', { 'class': 'hatch-bg', x: 0, y: 0, width: 6, height: 6 }, hatch);
    el('line', { 'class': 'hatch-line', x1: 0, y1: 0, x2: 0, y2: 6 }, hatch);
    this.hatch = 'url(#hatch-' + model.meta.id + ')';
    this.svg.classList.toggle('dim', !!(this.selection && (this.selection.lanes.length || this.selection.channels.length)));
    this.drawAxis(fullWidth, w);
    var grid = el('g', { 'class': 'grid' }, this.svg);
    this.gridTicks.forEach(function (t) {
      var x = self.x(t);
      el('line', { 'class': 'gridline', x1: x, x2: x, y1: 0, y2: model.height }, grid);
    });
    var t0 = this.t0, t1 = this.t1;
    model.rowsLayout.forEach(function (row) {
      if (row.type === 'session') { self.drawSession(row); }
      else if (row.type === 'scope') { self.drawScope(row); }
      else if (row.type === 'scopes') { self.drawScopeSummary(row); }
      else if (row.type === 'channel') { self.drawChannel(row); }
      else { row.lanes.forEach(function (lane) { self.drawLane(row, lane, t0, t1); }); }
    });
    this.overlay = el('g', { 'class': 'highlights' }, this.svg);
    this.brush = el('rect', { 'class': 'brush', x: 0, y: 0, width: 0, height: model.height, visibility: 'hidden' }, this.svg);
    this.rangeLabel.textContent = this.rangeText();
    this.section.querySelector('.axis-order').setAttribute('aria-pressed', String(model.axis === 'order'));
    this.section.querySelector('.axis-time').setAttribute('aria-pressed', String(model.axis === 'time'));
    this.section.querySelector('.back').disabled = this.history.length === 0;
    this.section.querySelector('.axis-time').disabled = !!model.density;
    this.drawSelection();
  };

  Timeline.prototype.rangeText = function () {
    var model = this.model, cols = model.cols, n = model.rows;
    if (model.density) {
      return 'Events seq ' + Math.max(1, Math.ceil(this.t0 + 0.5)) + ' \u2013 ' + Math.min(model.hi, Math.floor(this.t1 + 0.5)) +
        ' of ' + model.meta.events + ' (summarised: counts per channel)';
    }
    if (!n) { return 'No events'; }
    if (model.axis === 'order') {
      var a = Math.max(0, Math.ceil(this.t0 - 0.5)), b = Math.min(n - 1, Math.floor(this.t1 - 0.5));
      if (b < a) { return 'No events in view'; }
      return 'Events seq ' + cols.seq[a] + ' \u2013 ' + cols.seq[b] + ' (' + (b - a + 1) + ' of ' + n + '), ' +
        fmtTime(cols.t[a]) + ' \u2013 ' + fmtTime(cols.t[b]);
    }
    return 'Showing ' + fmtTime(this.t0) + ' \u2013 ' + fmtTime(this.t1) + ' of ' + fmtDuration(model.endUs);
  };

  Timeline.prototype.drawAxis = function (fullWidth, w) {
    var order = this.model.axis === 'order', cols = this.model.cols, n = this.model.rows;
    var span = Math.max(this.t1 - this.t0, 1e-3), target = span / Math.max(2, Math.floor(w / 110));
    var power = Math.pow(10, Math.floor(Math.log(target) / Math.LN10)), step = power;
    [1, 2, 5, 10].some(function (m) { step = m * power; return step >= target; });
    if (order) { step = Math.max(1, Math.round(step)); }
    this.axis.textContent = '';
    this.axis.setAttribute('width', fullWidth);
    this.axis.setAttribute('height', AXIS_H);
    text(this.axis, 8, 17, order ? 'event order (seq; time in hover)' : 'time since session start', 'axis-label');
    this.gridTicks = [];
    // Order axis: a tick per `step` events, at the event's column, labelled with its seq.
    var start = order ? Math.ceil((this.t0 - 0.5) / step) * step + 0.5 : Math.ceil(this.t0 / step) * step;
    for (var t = start; t <= this.t1 + 1e-9; t += step) {
      if (order && (t < 0 || t > this.model.hi)) { continue; }
      var x = this.x(t);
      this.gridTicks.push(t);
      el('line', { 'class': 'axis-tick', x1: x, x2: x, y1: AXIS_H - 6, y2: AXIS_H }, this.axis);
      var seq = this.model.density ? Math.floor(t) + 1 : cols.seq[Math.min(n - 1, Math.floor(t))];
      var label = text(this.axis, x, 15, order ? String(seq) : fmtTime(t, step), 'axis-label');
      label.setAttribute('text-anchor', 'middle');
      // A label centred on a tick near the right edge would be cut off by the axis's end:
      // it ends at the edge instead.
      if (x + label.getComputedTextLength() / 2 > fullWidth - 2) {
        label.setAttribute('text-anchor', 'end');
        label.setAttribute('x', fullWidth - 2);
      }
    }
  };

  // Buckets `rows` (sorted by time) in the view per pixel column; `classify` names the
  // path a row goes to (null: none); `extent` gives how far a mark reaches back (a slow
  // delivery's duration). Returns {cls: {count, cols: {x: width in px}}}.
  Timeline.prototype.bucket = function (rows, classify, extent) {
    var cols = this.model.cols, out = {};
    if (this.model.axis === 'order') { extent = null; }
    for (var i = lowerBound(rows, cols.p, this.t0); i < rows.length; i++) {
      var r = rows[i], t = cols.p[r];
      if (t > this.t1) { break; }
      var cls = classify(r);
      if (!cls) { continue; }
      var group = out[cls] || (out[cls] = { count: 0, cols: {} });
      group.count += 1;
      var x = Math.floor(this.x(t));
      var width = extent ? Math.max(0, x - Math.floor(this.x(Math.max(t - extent(r), this.t0)))) : 0;
      group.cols[x] = Math.max(group.cols[x] || 0, width);
    }
    return out;
  };

  function lowerBound(rows, times, t) {
    var low = 0, high = rows.length;
    while (low < high) { var mid = (low + high) >> 1; if (times[rows[mid]] < t) { low = mid + 1; } else { high = mid; } }
    return low;
  }

  // One rectangle per column, its right edge at the column's end.
  function pathOf(group, y, h, minWidth) {
    var d = [];
    for (var x in group.cols) {
      var w = Math.max(group.cols[x], minWidth);
      d.push('M' + (+x + 1 - w) + ' ' + y + 'h' + w + 'v' + h + 'h' + (-w) + 'z');
    }
    return d.join('');
  }

  function marks(parent, groups, cls, y, h, minWidth) {
    var group = groups[cls];
    if (!group) { return; }
    el('path', { 'class': cls, d: pathOf(group, y, h, minWidth), 'data-count': group.count, 'data-marks': Object.keys(group.cols).length }, parent);
  }

  // One path of vertical ticks per class, a tick per pixel column.
  function ticks(parent, groups, classes, row) {
    classes.forEach(function (cls) {
      var group = groups[cls];
      if (!group) { return; }
      var d = [];
      for (var x in group.cols) { d.push('M' + (+x + 0.5) + ' ' + (row.y + 3) + 'v' + (row.h - 6)); }
      el('path', { 'class': cls, d: d.join(''), 'data-count': group.count, 'data-marks': Object.keys(group.cols).length }, parent);
    });
  }

  Timeline.prototype.drawSession = function (row) {
    var model = this.model, cols = model.cols;
    var g = el('g', { 'class': 'session-row' }, this.svg);
    el('rect', { 'class': 'group-bg', x: 0, y: row.y, width: '100%', height: row.h }, g);
    text(g, 8, row.y + 14, 'Session: gaps and other events', 'channel-label');
    var groups = this.bucket(model.sessionRows, function (r) {
      var k = cols.kind[r];
      return k === KIND.gap ? 'gap' : k === KIND.removeUnregistered ? 'unregistered' : 'unknown';
    });
    marks(g, groups, 'gap', row.y + 3, row.h - 6, 4);
    marks(g, groups, 'unknown', row.y + 3, row.h - 6, 3);
    if (groups.unregistered) { this.crosses(g, groups.unregistered, row.y + row.h / 2); }
  };

  Timeline.prototype.crosses = function (parent, group, cy) {
    var d = [];
    for (var x in group.cols) { var px = +x; d.push('M' + (px - 4) + ' ' + (cy - 4) + 'l8 8M' + (px - 4) + ' ' + (cy + 4) + 'l8 -8'); }
    el('path', { 'class': 'unregistered', d: d.join(''), 'data-count': group.count, 'data-marks': Object.keys(group.cols).length }, parent);
  };

  Timeline.prototype.drawScope = function (row) {
    var scope = row.scope;
    var g = el('g', { 'class': 'scope' + (scope.ended < 0 ? ' open' : ''), 'data-scope': scope.index }, this.svg);
    text(g, 8, row.y + row.h / 2 + 4, cut('scope: ' + scope.name, 48), 'scope-label', this.clip);
    if (scope.endP < this.t0 || scope.startP > this.t1) { return; }
    var x0 = this.x(Math.max(scope.startP, this.t0)), x1 = this.x(Math.min(scope.endP, this.t1));
    el('rect', { 'class': 'bar', x: x0, y: row.y + 3, width: Math.max(x1 - x0, 1), height: row.h - 6 }, g);
  };

  Timeline.prototype.drawScopeSummary = function (row) {
    var cols = this.model.cols;
    var g = el('g', { 'class': 'scopes' }, this.svg);
    text(g, 8, row.y + row.h / 2 + 4, this.model.scopes.length + ' scopes: beginnings and ends', 'scope-label');
    var groups = this.bucket(this.model.scopeRows, function (r) { return cols.kind[r] === KIND.scopeBegan ? 'scope-tick began' : 'scope-tick ended'; });
    ticks(g, groups, ['scope-tick began', 'scope-tick ended'], row);
  };

  Timeline.prototype.drawChannel = function (row) {
    var model = this.model, cols = model.cols, channel = row.channel;
    var g = el('g', { 'class': 'channel', 'data-channel': channel.index }, this.svg);
    el('rect', { 'class': 'group-bg', x: 0, y: row.y, width: '100%', height: row.h }, g);
    var label = cut(channel.name, 40) + (channel.single ? ' \u00b7 single slot' : '');
    if (model.packed) { label += ' \u00b7 ' + channel.lanes.length + ' reg.'; }
    text(g, 8, row.y + 14, label, 'channel-label', this.clip);
    var axisY = row.y + row.h / 2;
    el('line', { 'class': 'axis-line', x1: LABEL_W, x2: this.x(this.t1), y1: axisY, y2: axisY }, g);
    var groups = this.bucket(channel.rows, function (r) {
      return cols.kind[r] === KIND.removeUnregistered ? 'unregistered' : 'tick';
    });
    ticks(g, groups, ['tick'], row);
    if (groups.unregistered) { this.crosses(g, groups.unregistered, axisY); }
    if (model.density && model.densityByChannel[channel.index]) { this.drawDensity(g, row, model.densityByChannel[channel.index]); }
    // Changes that reached nobody: a ring around their tick.
    var unheard = this.bucket(model.unheardByChannel[channel.index] || [], function () { return 'unheard'; });
    if (unheard.unheard) {
      var d = [], seqs = [];
      for (var x in unheard.unheard.cols) { d.push('M' + (+x - 4.5) + ' ' + axisY + 'a5 5 0 1 0 10 0a5 5 0 1 0 -10 0'); }
      this.inView(model.unheardByChannel[channel.index]).forEach(function (r) { seqs.push(cols.seq[r]); });
      el('path', { 'class': 'unheard', d: d.join(''), 'data-count': unheard.unheard.count, 'data-seqs': seqs.join(' ') }, g);
    }
  };

  // A summarised channel: per range of sequence numbers, a bar as high as the square root
  // of its changes and deliveries (problems in their own colour on top).
  Timeline.prototype.drawDensity = function (g, row, counts) {
    var bins = this.model.density.bins, width = this.model.hi / bins, all = [], problems = [];
    var b0 = Math.max(0, Math.floor(this.t0 / width)), b1 = Math.min(bins - 1, Math.floor(this.t1 / width));
    var total = 0, h = row.h - 4;
    for (var b = b0; b <= b1; b++) {
      var count = counts.changes[b] + counts.deliveries[b];
      if (!count) { continue; }
      total += count;
      var x0 = this.x(Math.max(b * width, this.t0)), x1 = this.x(Math.min((b + 1) * width, this.t1));
      var w = Math.max(x1 - x0, 1), bar = Math.max(1, Math.sqrt(count / counts.max) * h);
      all.push('M' + x0 + ' ' + (row.y + row.h - 2) + 'h' + w + 'v' + (-bar) + 'h' + (-w) + 'z');
      if (counts.problems[b]) {
        var top = Math.max(1, Math.sqrt(counts.problems[b] / counts.max) * h);
        problems.push('M' + x0 + ' ' + (row.y + row.h - 2) + 'h' + w + 'v' + (-top) + 'h' + (-w) + 'z');
      }
    }
    el('path', { 'class': 'density', d: all.join(''), 'data-count': total }, g);
    el('path', { 'class': 'density problems', d: problems.join('') }, g);
  };

  // The rows of a list (sorted by position) inside the view.
  Timeline.prototype.inView = function (rows) {
    var cols = this.model.cols, out = [];
    for (var i = lowerBound(rows, cols.p, this.t0); i < rows.length && cols.p[rows[i]] <= this.t1; i++) { out.push(rows[i]); }
    return out;
  };

  Timeline.prototype.drawLane = function (row, lane, t0, t1) {
    var model = this.model, cols = model.cols;
    var flagged = this.flagged[lane.index];
    var g = el('g', { 'class': 'lane end-' + lane.ending + (flagged ? ' flagged' : ''), 'data-lane': lane.index }, this.svg);
    if (!model.packed) {
      text(g, 20, row.y + row.h / 2 + 4, cut('r' + lane.id + ' ' + lane.owner + ' \u00b7 ' + lane.site, 48), 'lane-label', this.clip);
      if (flagged) { el('circle', { 'class': 'flag', cx: 12, cy: row.y + row.h / 2, r: 3 }, g); }
    }
    var y = row.y + 3, h = row.h - 6;
    this.drawMissed(g, lane, y, h);
    if (lane.endP < t0 || lane.startP > t1) { return; }
    var x0 = this.x(Math.max(lane.startP, t0)), x1 = this.x(Math.min(lane.endP, t1));
    el('rect', { 'class': 'bar', x: x0, y: y, width: Math.max(x1 - x0, 1), height: h }, g);
    if (lane.startP >= t0) { el('line', { 'class': 'cap', x1: x0, x2: x0, y1: y - 1, y2: y + h + 1 }, g); }
    if (lane.end >= 0 && lane.endP <= t1) { el('line', { 'class': 'cap', x1: x1, x2: x1, y1: y - 1, y2: y + h + 1 }, g); }
    // Still live after the scope it was declared in ended: that stretch hatched.
    var scope = lane.scope > 0 ? model.scopes[lane.scope - 1] : null;
    if (scope && scope.ended >= 0 && (lane.end < 0 || lane.end > scope.ended) && scope.endP < Math.min(lane.endP, t1)) {
      var h0 = this.x(Math.max(scope.endP, t0));
      el('rect', { 'class': 'leaked', x: h0, y: y, width: Math.max(x1 - h0, 1), height: h, fill: this.hatch, 'data-from-seq': cols.seq[scope.ended] }, g);
    }
    var groups = this.bucket(lane.rows, function (r) {
      if (cols.kind[r] === KIND.skipped) { return 'mark skipped'; }
      var flags = cols.flags[r];
      return flags & FLAG.offMain ? 'mark off-main' : flags & FLAG.slow ? 'mark slow' : 'mark';
    }, function (r) { return cols.flags[r] & FLAG.slow ? cols.dur[r] : 0; });
    marks(g, groups, 'mark', y + 1, h - 2, 2);
    marks(g, groups, 'mark skipped', y + 1, h - 2, 2);
    marks(g, groups, 'mark slow', y, h, 2);
    marks(g, groups, 'mark off-main', row.y, row.h, 3);
  };

  // A registration replaced while its owner was alive: from its end to the last change it
  // missed a dotted line, and at each missed change a hollow mark (the what-if multicast
  // answer). `data-seqs` lists the missed changes in view.
  Timeline.prototype.drawMissed = function (g, lane, y, h) {
    if (!lane.missed.length) { return; }
    var cols = this.model.cols, last = cols.p[lane.missed[lane.missed.length - 1]];
    if (lane.endP < this.t1 && last > this.t0) {
      var gx0 = this.x(Math.max(lane.endP, this.t0)), gx1 = this.x(Math.min(last, this.t1));
      el('line', { 'class': 'ghost', x1: gx0, x2: gx1, y1: y + h / 2, y2: y + h / 2 }, g);
    }
    var groups = this.bucket(lane.missed, function () { return 'missed'; });
    if (!groups.missed) { return; }
    var d = [];
    for (var x in groups.missed.cols) { d.push('M' + (+x - 3) + ' ' + (y - 1) + 'h7v' + (h + 2) + 'h-7z'); }
    el('path', { 'class': 'missed', d: d.join(''), 'data-count': groups.missed.count,
      'data-seqs': this.inView(lane.missed).map(function (r) { return cols.seq[r]; }).join(' ') }, g);
  };

  // MARK: - Selection (findings and their citations)

  Timeline.prototype.rowPosition = function (r) {
    var model = this.model, cols = model.cols, k = cols.kind[r];
    if (cols.lane[r] > 0 && k !== KIND.removeUnregistered) {
      var lane = model.lanes[cols.lane[r] - 1];
      return lane.row;
    }
    if (cols.channel[r] > 0) { return model.channels[cols.channel[r] - 1].row; }
    if ((k === KIND.scopeBegan || k === KIND.scopeEnded) && cols.scope[r] > 0) { return model.scopes[cols.scope[r] - 1].row; }
    return model.rowsLayout[0];
  };

  // Selecting what a finding cites: the view zooms to its events (and the changes its
  // lanes missed) with a margin, scrolls to its lanes, highlights them and dims the rest.
  Timeline.prototype.select = function (selection) {
    this.selection = selection;
    if (!selection) { this.render(); return; }
    var model = this.model, cols = model.cols, self = this, positions = [];
    selection.rows.forEach(function (r) { positions.push(cols.p[r]); });
    selection.lanes.forEach(function (l) {
      var lane = model.lanes[l];
      lane.missed.forEach(function (r) { positions.push(cols.p[r]); });
      if (!selection.rows.length) { positions.push(lane.startP, lane.endP); }
    });
    if (positions.length) {
      var lo = Math.min.apply(null, positions), hi = Math.max.apply(null, positions);
      var order = model.axis === 'order', span = Math.max(hi - lo, order ? 4 : 10);
      var pad = Math.max(span * 0.15, order ? 1 : 2);
      this.setView(lo - pad, hi + pad);
    }
    this.render();
    var ys = [];
    selection.rows.forEach(function (r) { var row = self.rowPosition(r); if (row) { ys.push(row.y, row.y + row.h); } });
    selection.lanes.forEach(function (l) { var row = model.lanes[l].row; if (row) { ys.push(row.y, row.y + row.h); } });
    selection.channels.forEach(function (c) { var row = model.channels[c].row; if (row) { ys.push(row.y, row.y + row.h); } });
    if (ys.length) {
      var top = Math.min.apply(null, ys), bottom = Math.max.apply(null, ys), height = this.scroll.clientHeight;
      this.scroll.scrollTop = bottom - top + 80 <= height ? Math.max(0, top - 40) : Math.max(0, top - 20);
    }
    // The chart itself into the window, if the page was scrolled away from it.
    var box = this.scroll.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight - 120) { this.scroll.scrollIntoView({ block: 'start' }); }
  };

  // The view as `back` restores it.
  Timeline.prototype.remember = function (key) {
    this.history.push({ t0: this.t0, t1: this.t1, axis: this.model.axis, selection: this.selection,
      scrollTop: this.scroll.scrollTop, key: this.key || null });
    if (this.history.length > 100) { this.history.shift(); }
    this.key = key || null;
  };

  Timeline.prototype.back = function () {
    var view = this.history.pop();
    if (!view) { return false; }
    if (view.axis !== this.model.axis) { setAxis(this.model, view.axis); }
    this.t0 = view.t0;
    this.t1 = view.t1;
    this.selection = view.selection;
    this.key = view.key;
    this.section.querySelectorAll('li.finding.selected, button.cite.active').forEach(function (node) {
      node.classList.remove('selected');
      node.classList.remove('active');
    });
    var item = view.key && this.section.querySelector('li.finding[data-key="' + view.key + '"]');
    if (item) { item.classList.add('selected'); }
    this.render();
    this.scroll.scrollTop = view.scrollTop;
    setFragment(this, view.key);
    return true;
  };

  // Clamps a view to the events' extent.
  Timeline.prototype.setView = function (t0, t1) {
    var lo = this.model.lo, hi = this.model.hi, span = Math.max(t1 - t0, this.model.axis === 'order' ? 3 : 10);
    if (span >= hi - lo) { t0 = lo; t1 = hi; } else {
      t0 = Math.max(lo, Math.min(t0, hi - span));
      t1 = t0 + span;
    }
    this.t0 = t0;
    this.t1 = t1;
  };

  // Switches axis keeping the same events in view.
  Timeline.prototype.switchAxis = function (axis) {
    var model = this.model, cols = model.cols, n = model.rows;
    if (axis === model.axis || !n) { return; }
    this.remember(this.key);
    var first = lowerBound(indexes(n), cols.p, this.t0), last = lowerBound(indexes(n), cols.p, this.t1 + 1e-9) - 1;
    var whole = this.t0 <= model.lo && this.t1 >= model.hi;
    setAxis(model, axis);
    if (whole || last < first) { this.t0 = model.lo; this.t1 = model.hi; } else {
      var span = Math.max(cols.p[last] - cols.p[first], 1);
      this.setView(cols.p[first] - span * 0.05, cols.p[last] + span * 0.05);
    }
    this.render();
  };

  function indexes(n) {
    var all = new Int32Array(n);
    for (var i = 0; i < n; i++) { all[i] = i; }
    return all;
  }

  Timeline.prototype.drawSelection = function () {
    var svg = this.svg, self = this, selection = this.selection, cols = this.model.cols;
    svg.querySelectorAll('.hl').forEach(function (node) { node.classList.remove('hl'); });
    this.overlay.textContent = '';
    if (!selection) { return; }
    selection.lanes.forEach(function (lane) {
      var node = svg.querySelector('g.lane[data-lane="' + lane + '"]');
      if (node) { node.classList.add('hl'); }
    });
    selection.channels.forEach(function (channel) {
      var node = svg.querySelector('g.channel[data-channel="' + channel + '"]');
      if (node) { node.classList.add('hl'); }
    });
    selection.rows.forEach(function (r) {
      var row = self.rowPosition(r);
      var t = cols.p[r];
      if (!row || t < self.t0 || t > self.t1) { return; }
      el('circle', { 'class': 'hl-event', cx: self.x(t), cy: row.y + row.h / 2, r: 7, 'data-row': r }, self.overlay);
    });
  };

  // MARK: - Hover

  Timeline.prototype.rowAt = function (y) {
    var rows = this.model.rowsLayout, low = 0, high = rows.length - 1;
    while (low < high) { var mid = (low + high + 1) >> 1; if (rows[mid].y <= y) { low = mid; } else { high = mid - 1; } }
    var row = rows[low];
    return row && y >= row.y && y < row.y + row.h ? row : null;
  };

  Timeline.prototype.nearest = function (rows, x) {
    var cols = this.model.cols, t = this.timeAt(x), reach = HOVER_PX / this.scale;
    var i = lowerBound(rows, cols.p, t - reach), best = -1, bestDistance = Infinity, count = 0;
    for (; i < rows.length && cols.p[rows[i]] <= t + reach; i++) {
      var distance = Math.abs(cols.p[rows[i]] - t);
      count += 1;
      if (distance < bestDistance) { best = rows[i]; bestDistance = distance; }
    }
    return best < 0 ? null : { row: best, count: count };
  };

  Timeline.prototype.describe = function (x, y) {
    var row = this.rowAt(y), model = this.model, self = this;
    if (!row) { return null; }
    var onChart = x >= LABEL_W, hit;
    if (row.type === 'session') {
      hit = onChart && this.nearest(model.sessionRows, x);
      return hit ? eventInfo(model, hit.row, hit.count) : sessionInfo(model);
    }
    if (row.type === 'scope') { return scopeInfo(model, row.scope); }
    if (row.type === 'scopes') {
      hit = onChart && this.nearest(model.scopeRows, x);
      return hit ? scopeInfo(model, model.scopes[model.cols.scope[hit.row] - 1]) : { title: model.scopes.length + ' scopes', lines: [] };
    }
    if (row.type === 'channel') {
      hit = onChart && this.nearest(row.channel.rows, x);
      if (!hit && onChart && model.density && model.densityByChannel[row.channel.index]) {
        return densityInfo(model, row.channel, this.timeAt(x));
      }
      return hit ? eventInfo(model, hit.row, hit.count) : channelInfo(model, row.channel);
    }
    var time = this.timeAt(x), lane = row.lanes[0];
    if (onChart && row.lanes.length > 1) {
      lane = row.lanes.reduce(function (best, candidate) {
        function gap(l) { return time < l.startP ? l.startP - time : time > l.endP ? time - l.endP : 0; }
        return gap(candidate) < gap(best) ? candidate : best;
      }, row.lanes[0]);
    }
    hit = onChart && this.nearest(lane.rows, x);
    if (!hit && onChart && model.axis === 'time') {
      // The whole extent of a slow delivery answers, not just its end.
      var cols = model.cols;
      lane.rows.some(function (r) {
        if (cols.flags[r] & FLAG.slow && cols.t[r] - cols.dur[r] <= time && time <= cols.t[r]) { hit = { row: r, count: 1 }; return true; }
        return false;
      });
    }
    return hit ? eventInfo(model, hit.row, hit.count) : laneInfo(model, lane, self);
  };

  function threadName(model, index) {
    var thread = model.threads[index] || [0, 0];
    return 'thread ' + thread[0] + (thread[1] ? ' (main)' : '');
  }

  function laneInfo(model, lane) {
    var cols = model.cols;
    var lines = [
      ['owner', lane.owner], ['channel', model.channels[lane.channel].name], ['call site', lane.site + (lane.fn ? ' in ' + lane.fn : '')],
      ['options', lane.options || '\u2014']
    ];
    if (lane.queue) { lines.push(['queue', lane.queue]); }
    if (lane.expectsMain) { lines.push(['expects', 'the main thread']); }
    if (lane.scope > 0) { lines.push(['scope', model.scopes[lane.scope - 1].name]); }
    lines.push(['registered', 'seq ' + cols.seq[lane.start] + ' at ' + fmtTime(cols.t[lane.start])]);
    lines.push(lane.end >= 0 ? ['ended', lane.ending + ' (' + (lane.reason || lane.ending) + '), seq ' + cols.seq[lane.end] + ' at ' + fmtTime(cols.t[lane.end])]
      : ['ended', 'never: live at the end of the session']);
    var delivered = 0, skipped = 0;
    lane.rows.forEach(function (r) { if (cols.kind[r] === KIND.skipped) { skipped += 1; } else { delivered += 1; } });
    lines.push(['deliveries', delivered + (skipped ? ', ' + skipped + ' skipped' : '')]);
    if (lane.missed.length) {
      lines.push(['missed', lane.missed.length + ' change' + (lane.missed.length === 1 ? '' : 's') + ' after it was replaced while its owner was alive (seq ' +
        lane.missed.slice(0, 10).map(function (r) { return cols.seq[r]; }).join(', ') + (lane.missed.length > 10 ? ', \u2026' : '') + ')']);
    }
    return { title: 'Registration r' + lane.id, lines: lines };
  }

  function densityInfo(model, channel, p) {
    var bins = model.density.bins, width = model.hi / bins, b = Math.max(0, Math.min(bins - 1, Math.floor(p / width)));
    var counts = model.densityByChannel[channel.index];
    var first = Math.floor(b * width) + 1, last = Math.floor((b + 1) * width);
    var time = model.density.times[b];
    return { title: channel.name, lines: [['seq', first + ' \u2013 ' + last + (time >= 0 ? ' (from ' + fmtTime(time) + ')' : '')],
      ['changes', String(counts.changes[b])], ['deliveries', String(counts.deliveries[b])],
      ['problems', counts.problems[b] + ' (off the main thread, slow or skipped)'],
      ['detail', 'obsreplay report --from ' + first + ' --to ' + last]] };
  }

  function channelInfo(model, channel) {
    var changes = channel.rows.filter(function (r) { return model.cols.kind[r] === KIND.changed; }).length;
    return { title: channel.name, lines: [['policy', channel.single ? 'single slot (a new registration replaces the last)' : 'multicast'],
      ['changes', String(changes)], ['registrations', String(channel.lanes.length)]] };
  }

  function scopeInfo(model, scope) {
    return { title: 'Scope: ' + scope.name, lines: [
      ['began', scope.began >= 0 ? 'seq ' + model.cols.seq[scope.began] + ' at ' + fmtTime(model.cols.t[scope.began]) : 'not recorded'],
      ['ended', scope.ended >= 0 ? 'seq ' + model.cols.seq[scope.ended] + ' at ' + fmtTime(model.cols.t[scope.ended]) : 'not before the session ended']] };
  }

  function sessionInfo(model) {
    return { title: 'Session ' + model.meta.id, lines: [['events', String(model.rows)], ['gaps and others', String(model.sessionRows.length)]] };
  }

  function eventInfo(model, r, count) {
    var cols = model.cols, k = cols.kind[r], str = model.str, flags = cols.flags[r];
    var kindName = layout.kinds[k].name;
    var lines = [['seq', String(cols.seq[r])], ['time', fmtTime(cols.t[r])], ['thread', threadName(model, cols.thread[r])]];
    var lane = cols.lane[r] > 0 ? model.lanes[cols.lane[r] - 1] : null;
    if (lane) { lines.push(['registration', 'r' + lane.id + ' of ' + lane.owner]); lines.push(['call site', lane.site]); }
    if (k === KIND.changed) {
      lines.push(['channel', model.channels[cols.channel[r] - 1].name]);
      lines.push(['old', cols.old[r] ? str(cols.old[r]) : 'nil']);
      lines.push(['new', cols.new[r] ? str(cols.new[r]) : 'nil']);
      if (cols.site[r]) { lines.push(['posted at', str(cols.site[r])]); }
      lines.push(['live', cols.live[r] < 0 ? '?' : String(cols.live[r])]);
      if (flags & FLAG.redundant) { lines.push(['note', 'old and new are equal']); }
      if (flags & FLAG.noCallback) { lines.push(['note', 'no callback was registered']); }
      if (flags & FLAG.prior) { lines.push(['note', 'prior notification']); }
    } else if (k === KIND.delivered || k === KIND.skipped) {
      if (k === KIND.delivered) { lines.push(['duration', fmtDuration(cols.dur[r])]); }
      if (k === KIND.skipped) { lines.push(['reason', str(cols.reason[r])]); }
      if (flags & FLAG.initial) { lines.push(['initial value', str(cols.new[r])]); }
      if (cols.change[r] > 0) {
        var c = r - cols.change[r];
        lines.push(['change', 'seq ' + cols.seq[c] + ': ' + (cols.old[c] ? str(cols.old[c]) : 'nil') + ' \u2192 ' + (cols.new[c] ? str(cols.new[c]) : 'nil')]);
      }
      if (flags & FLAG.offMain) { lines.push(['problem', 'expects the main thread, ran on ' + threadName(model, cols.thread[r])]); }
      if (flags & FLAG.slow) { lines.push(['problem', 'longer than the ' + fmtDuration(model.meta.budgetUs) + ' budget']); }
    } else if (k === KIND.removed) {
      lines.push(['reason', str(cols.reason[r])]);
      if (cols.site[r]) { lines.push(['requested at', str(cols.site[r])]); }
    } else if (k === KIND.removeUnregistered) {
      if (cols.channel[r] > 0) { lines.push(['channel', model.channels[cols.channel[r] - 1].name]); }
      if (cols.owner[r]) { lines.push(['owner', str(cols.owner[r])]); }
      if (cols.site[r]) { lines.push(['requested at', str(cols.site[r])]); }
      if (cols.reason[r]) { lines.push(['detail', str(cols.reason[r])]); }
    } else if (k === KIND.gap || k === KIND.unknown) {
      lines.push(['detail', str(cols.reason[r])]);
    } else if (k === KIND.replaced && cols.other[r] > 0) {
      var other = model.lanes[cols.other[r] - 1];
      lines.push(['replaced', 'r' + other.id + ' of ' + other.owner]);
    }
    if (count > 1) { lines.push(['here', count + ' events within ' + HOVER_PX + ' px: zoom in to tell them apart']); }
    var title = k === KIND.delivered ? (flags & FLAG.initial ? 'initial delivery' : 'delivered') : kindName;
    return { title: title, lines: lines };
  }

  function showTooltip(info, clientX, clientY) {
    var tip = document.getElementById('tooltip');
    if (!info) { tip.hidden = true; return; }
    tip.textContent = '';
    var title = document.createElement('div');
    title.className = 'title';
    title.textContent = info.title;
    tip.appendChild(title);
    var table = document.createElement('table');
    info.lines.forEach(function (line) {
      var tr = document.createElement('tr');
      var key = document.createElement('td');
      key.className = 'key';
      key.textContent = line[0];
      var value = document.createElement('td');
      value.textContent = line[1];
      tr.appendChild(key);
      tr.appendChild(value);
      table.appendChild(tr);
    });
    tip.appendChild(table);
    tip.hidden = false;
    var x = clientX + 14, y = clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 4) { x = Math.max(4, clientX - tip.offsetWidth - 14); }
    if (y + tip.offsetHeight > window.innerHeight - 4) { y = Math.max(4, clientY - tip.offsetHeight - 14); }
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  // MARK: - Events

  Timeline.prototype.bind = function () {
    var self = this, svg = this.svg, drag = null;
    function local(event) {
      var box = svg.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    }
    svg.addEventListener('mousemove', function (event) {
      var p = local(event);
      if (drag) {
        var lo = Math.max(Math.min(drag.x, p.x), LABEL_W), hi = Math.max(drag.x, p.x);
        self.brush.setAttribute('x', lo);
        self.brush.setAttribute('width', Math.max(hi - lo, 0));
        self.brush.setAttribute('visibility', 'visible');
        showTooltip(null);
        return;
      }
      showTooltip(self.describe(p.x, p.y), event.clientX, event.clientY);
    });
    svg.addEventListener('mouseleave', function () { showTooltip(null); });
    svg.addEventListener('mousedown', function (event) {
      var p = local(event);
      if (event.button !== 0 || p.x < LABEL_W) { return; }
      drag = p;
      event.preventDefault();
    });
    window.addEventListener('mouseup', function (event) {
      if (!drag) { return; }
      var p = local(event), start = drag;
      drag = null;
      self.brush.setAttribute('visibility', 'hidden');
      if (Math.abs(p.x - start.x) < 5) { return; }
      var t0 = self.timeAt(Math.max(Math.min(start.x, p.x), LABEL_W)), t1 = self.timeAt(Math.max(start.x, p.x));
      self.zoom(t0, t1);
    });
    this.section.querySelector('.zoom-reset').addEventListener('click', function () { self.zoom(self.model.lo, self.model.hi); });
    this.section.querySelector('.back').addEventListener('click', function () { self.back(); });
    this.section.querySelector('.axis-order').addEventListener('click', function () { self.switchAxis('order'); });
    this.section.querySelector('.axis-time').addEventListener('click', function () { self.switchAxis('time'); });
    this.section.querySelector('.zoom-out').addEventListener('click', function () {
      var middle = (self.t0 + self.t1) / 2, half = self.t1 - self.t0;
      self.zoom(middle - half, middle + half);
    });
    this.section.querySelectorAll('li.finding').forEach(function (item) {
      item.addEventListener('click', function (event) {
        var cite = event.target.closest('button.cite');
        self.section.querySelectorAll('li.finding.selected, button.cite.active').forEach(function (node) {
          node.classList.remove('selected');
          node.classList.remove('active');
        });
        item.classList.add('selected');
        if (cite) { cite.classList.add('active'); }
        if (event.target.closest('a.link')) { event.preventDefault(); }
        self.remember(item.getAttribute('data-key'));
        setFragment(self, self.key);
        function numbers(node, name) {
          return (node.getAttribute(name) || '').split(' ').filter(Boolean).map(Number);
        }
        if (cite) {
          self.select({ rows: numbers(cite, 'data-row'), lanes: numbers(cite, 'data-lane'), channels: [] });
        } else {
          self.select({ rows: numbers(item, 'data-rows'), lanes: numbers(item, 'data-lanes'), channels: numbers(item, 'data-channels') });
        }
      });
      // Keyboard: Tab reaches each finding, Enter (or Space) selects it.
      item.addEventListener('keydown', function (event) {
        if (event.target === item && (event.key === 'Enter' || event.key === ' ')) {
          event.preventDefault();
          item.click();
        }
      });
    });
  };

  Timeline.prototype.zoom = function (t0, t1) {
    this.remember(this.key);
    this.setView(t0, t1);
    this.render();
  };

  // The URL fragment names the selected finding (`#f=OJ001-1`; `#s=2&f=OJ001-1` in
  // another session than the first), so a link to it can be shared; none without one.
  function setFragment(timeline, key) {
    if (!window.history || !window.history.replaceState) { return; }
    var first = timeline.section.getAttribute('data-index') === '0';
    var hash = key ? (first ? '#f=' : '#s=' + timeline.model.meta.id + '&f=') + key : '';
    if (hash !== location.hash) {
      window.history.replaceState(null, '', location.pathname + location.search + hash);
    }
  }

  // MARK: - Sessions

  var timelines = {};
  function show(index) {
    document.querySelectorAll('section.session').forEach(function (section) {
      section.hidden = section.getAttribute('data-index') !== String(index);
    });
    document.querySelectorAll('nav.sessions button').forEach(function (button) {
      button.classList.toggle('current', button.getAttribute('data-index') === String(index));
    });
    var section = document.querySelector('section.session[data-index="' + index + '"]');
    if (!section) { return; }
    if (!timelines[index]) { timelines[index] = new Timeline(section, decode(data.sessions[index])); }
    timelines[index].render();
    current = index;
  }
  var current = 0;
  document.querySelectorAll('nav.sessions button').forEach(function (button) {
    button.addEventListener('click', function () { show(Number(button.getAttribute('data-index'))); });
  });
  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () { if (timelines[current]) { timelines[current].render(); } }, 150);
  });
  // `#f=OJ001-1` opens the first session's (or `#s=2&f=OJ001-1` session 2's) finding.
  function follow(hash) {
    var params = {};
    (hash || '').replace(/^#/, '').split('&').forEach(function (part) {
      var pair = part.split('=');
      if (pair.length === 2) { params[pair[0]] = decodeURIComponent(pair[1]); }
    });
    if (!params.f || !/^[A-Za-z0-9-]+$/.test(params.f)) { return false; }
    var section = params.s ? document.getElementById('session-' + params.s) : document.querySelector('section.session');
    var item = section && /^\d*$/.test(params.s || '') && section.querySelector('li.finding[data-key="' + params.f + '"]');
    if (!item) { return false; }
    show(Number(section.getAttribute('data-index')));
    var group = item.closest('details');
    if (group) { group.open = true; }
    item.click();
    // Scroll the findings panel only, never the window.
    var panel = item.closest('aside');
    panel.scrollTop = Math.max(0, item.offsetTop - panel.offsetTop - 40);
    return true;
  }
  window.addEventListener('hashchange', function () { follow(location.hash); });
  // Escape goes back to the view before the last selection or zoom.
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && timelines[current]) {
      if (timelines[current].back()) { event.preventDefault(); }
    }
  });
  var started = performance.now();
  if (data.sessions.length && !follow(location.hash)) { show(0); }
  document.body.setAttribute('data-render-ms', String(Math.round(performance.now() - started)));
  document.body.setAttribute('data-rendered', 'ok');
})();
