// live.js - the live page: polls pmproxy's /pmapi once a second per host,
// reads stackprof.EVENT.history (the text pmlogger archives, see
// docs/design.md "History value" and "Live page"), draws a FlameScope heat
// map and a flame graph on canvases.  Or, with #file=PATH.view.json, the
// same values of an archive range that pmflame -o wrote into its site.  Profile text reaches the document
// only through textContent, option text and canvas fillText: never markup.
(function () {
	'use strict';

	var EVENTS = { 'on-cpu': 'oncpu', 'off-cpu': 'offcpu', 'page-fault': 'pagefault' };
	var UNITS = { 'on-cpu': 'samples', 'off-cpu': 'µs blocked', 'page-fault': 'faults' };
	var KEEP = 3600;		// seconds of data kept per host
	var ROW_H = 16;

	// ---- state in the URL ----
	var state = {
		pmproxy: [], file: '', host: 0, event: 'on-cpu', proc: '', tid: '', win: '10', sel: '',
		cols: 300, view: 'icicle', zoom: '', q: '', paused: false
	};
	var readHash = null;	// the hash the state was last read from or written to
	function readUrl() {
		readHash = location.hash;
		var p = new URLSearchParams(location.hash.replace(/^#/, ''));
		var list = p.get('pmproxy');
		state.pmproxy = list ? list.split(',').filter(function (u) { return /^https?:\/\//.test(u); }) : [];
		state.file = fileOk(p.get('file') || '') ? p.get('file') : '';
		if (state.pmproxy.length === 0)
			state.pmproxy = [location.protocol === 'file:' ? 'http://127.0.0.1:44322' : location.origin];
		state.host = Math.max(0, Math.min(state.pmproxy.length - 1, parseInt(p.get('host') || '0', 10) || 0));
		state.event = EVENTS[p.get('event')] ? p.get('event') : 'on-cpu';
		state.proc = p.get('proc') || '';
		state.tid = p.get('tid') || '';
		state.win = ({ '10': 1, '60': 1, 'sel': 1 })[p.get('win')] ? p.get('win') : '10';
		state.sel = /^\d+-\d+$/.test(p.get('sel') || '') ? p.get('sel') : '';
		if (state.win === 'sel' && !state.sel)
			state.win = '10';
		state.cols = Math.max(30, Math.min(KEEP, parseInt(p.get('cols') || '300', 10) || 300));
		state.view = p.get('view') === 'flame' ? 'flame' : 'icicle';
		state.zoom = p.get('zoom') || '';
		state.q = p.get('q') || '';
		state.paused = p.get('paused') === '1';
	}
	// a view file of this site: relative, pmflame's names, nothing above it
	function fileOk(f) {
		return /^[A-Za-z0-9._+@,=~-]+(\/[A-Za-z0-9._+@,=~-]+)*\.view\.json$/.test(f) &&
			f.split('/').indexOf('..') < 0;
	}
	function writeUrl() {
		var p = new URLSearchParams();
		if (state.file)
			p.set('file', state.file);
		else
			p.set('pmproxy', state.pmproxy.join(','));
		['host', 'event', 'proc', 'tid', 'win', 'sel', 'cols', 'view', 'zoom', 'q'].forEach(function (k) {
			if (state[k] !== '' && state[k] !== undefined)
				p.set(k, String(state[k]));
		});
		if (state.paused)
			p.set('paused', '1');
		// a hash set by the user (or a link) whose hashchange is still to
		// come is theirs: read it then, never overwrite it with the old state
		if (location.hash !== readHash)
			return;
		var hash = '#' + p.toString();
		if (location.hash !== hash) {	// replaceState costs ms
			history.replaceState(null, '', hash);
			readHash = location.hash;
		}
	}

	// ---- one host: a pmproxy web context and the history read through it ----
	function Host(base) {
		this.base = base.replace(/\/+$/, '');
		this.label = base;
		this.ctx = null;
		this.pmcdPid = null;
		this.threads = new Map();	// id -> {pid, tid, comm, process}
		this.frames = new Map();	// id -> name
		this.stacks = new Map();	// id -> [frame id...]
		this.paths = new Map();		// pair -> names, cleared on any definition
		// An hour of values is most of the page's memory: each keeps its
		// (thread, stack) pairs as indexes into pairs[] and its counts in
		// typed arrays, off the JavaScript heap (16 bytes an item as
		// numbers in an Array, 6 here for most on-CPU values)
		this.pairs = [];		// pair -> [thread id, stack id]
		this.pairOf = new Map();	// thread id * 2^32 + stack id -> pair
		this.values = {};		// event -> [{t, drains, hz, keys, counts, usec}]
		this.heat = new Map();		// second -> Float64Array(rows)
		this.rows = 50;
		this.last = {};			// event -> newest drain time taken
		this.lastGood = null;		// server time of the last good fetch
		this.down = null;		// why the host is out, while it is
		this.gaps = [];			// {start, end, why} in server seconds
		this.skew = 0;			// server time - browser time
		this.interval = 1;
		this.fetches = 0;
		this.misses = 0;		// fetches in a row that brought no drain
		this.bytes = 0;
		Object.keys(EVENTS).forEach(function (e) { this.values[e] = []; this.last[e] = 0; }, this);
	}

	Host.prototype.url = function (path) {
		return this.base + path;
	};

	Host.prototype.get = function (path) {
		var self = this;
		return fetch(this.url(path), { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
			return r.text().then(function (t) {
				self.bytes += t.length;
				var j = null;
				try { j = JSON.parse(t); } catch (e) { /* not JSON: an error page */ }
				if (!r.ok || j === null || j.success === false) {
					var err = new Error(j && typeof j.message === 'string' ? j.message : 'HTTP ' + r.status);
					err.status = r.status;
					throw err;
				}
				return j;
			});
		});
	};

	Host.prototype.names = function () {
		return Object.keys(EVENTS).map(function (e) { return 'stackprof.' + EVENTS[e] + '.history'; })
			.concat(['pmcd.pid', 'stackprof.control.interval']).join(',');
	};

	// One poll: a context if there is none, then a fetch.  Resolves to true
	// when new data came.
	Host.prototype.poll = function () {
		var self = this;
		var ready = this.ctx !== null ? Promise.resolve() :
			this.get('/pmapi/context?hostspec=localhost&polltimeout=30').then(function (j) {
				self.ctx = j.context;
				if (j.labels && typeof j.labels.hostname === 'string')
					self.label = j.labels.hostname;
			});
		return ready.then(function () {
			return self.get('/pmapi/' + self.ctx + '/fetch?names=' + self.names());
		}).then(function (j) {
			return self.take(j);
		}, function (err) {
			var now = Date.now() / 1000 + self.skew;
			if (/unknown context/.test(err.message))
				self.ctx = null;	// expired: a new one, and a new cursor
			self.fail(err.status ? err.message : 'pmproxy unreachable', now);
			return true;
		});
	};

	// ---- an archive range from a view file: its values, parsed as pmproxy's ----
	Host.prototype.load = function () {
		var self = this;
		return fetch(this.base, { cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
			return r.text().then(function (t) {
				self.bytes += t.length;
				var j = null;
				try { j = JSON.parse(t); } catch (e) { /* not JSON */ }
				if (!r.ok || j === null || j.version !== 1 || !Array.isArray(j.values) ||
				    !isFinite(j.start) || !isFinite(j.end))
					throw new Error(r.ok ? 'not a pmflame view file' : 'HTTP ' + r.status);
				return j;
			});
		}).then(function (j) {
			self.takeFile(j);
			if (typeof j.error === 'string')
				self.fail(j.error, self.range.end);
		}, function (err) {
			self.fail(self.base + ': ' + err.message, Date.now() / 1000);
		});
	};

	Host.prototype.takeFile = function (j) {
		var self = this, ev = EVENTS[j.event] ? j.event : 'on-cpu';
		if (typeof j.host === 'string')
			this.label = j.host;
		this.event = ev;
		this.range = { start: Number(j.start), end: Number(j.end) };
		j.values.forEach(function (text) {
			if (typeof text === 'string')
				self.parse(ev, text);
		});
		(Array.isArray(j.gaps) ? j.gaps : []).forEach(function (g) {
			if (g && isFinite(g.start) && isFinite(g.end))
				self.gaps.push({ start: Number(g.start), end: Number(g.end), why: String(g.why) });
		});
		this.lastGood = this.range.end;
		if (this.heat.size === 0)
			this.heatOfValues(ev);
	};

	// No heat lines (an event other than on-CPU): one row per second, the
	// second's counts, placed as heatLine places a one-slice line.
	Host.prototype.heatOfValues = function (ev) {
		var self = this;
		this.rows = 1;
		this.values[ev].forEach(function (v) {
			var s = Math.floor(v.t), sum = 0;
			if (s + 0.5 > v.t)
				s--;
			for (var i = 0; i < v.counts.length; i++)
				sum += v.counts[i];
			var col = self.heat.get(s) || new Float64Array(1);
			col[0] += sum;
			self.heat.set(s, col);
		});
	};

	Host.prototype.fail = function (why, now) {
		if (this.down === null)
			this.down = { start: this.lastGood !== null ? this.lastGood : now, why: why };
		else
			this.down.why = why;
	};

	Host.prototype.take = function (j) {
		var self = this, fresh = false, pid = null, t = Number(j.timestamp);
		this.fetches++;
		if (isFinite(t))
			this.skew = t - Date.now() / 1000;
		(j.values || []).forEach(function (v) {
			var inst = v.instances && v.instances[0];
			if (!inst)
				return;
			if (v.name === 'pmcd.pid')
				pid = inst.value;
			else if (v.name === 'stackprof.control.interval' && inst.value > 0)
				self.interval = inst.value / 1000;
		});
		if (pid !== null && this.pmcdPid !== null && pid !== this.pmcdPid)
			this.fail('pmcd restarted', t);
		if (pid !== null)
			this.pmcdPid = pid;
		// definitions first in any event's value; on-CPU's carries the heat lines
		(j.values || []).forEach(function (v) {
			var m = /^stackprof\.(\w+)\.history$/.exec(v.name || ''), ev;
			if (!m)
				return;
			ev = Object.keys(EVENTS).filter(function (e) { return EVENTS[e] === m[1]; })[0];
			var inst = v.instances && v.instances[0];
			if (ev && inst && typeof inst.value === 'string' && self.parse(ev, inst.value))
				fresh = true;
		});
		// reachable again: the gap ends at the first new drain
		if (this.down !== null && fresh) {
			this.gaps.push({ start: this.down.start, end: this.last['on-cpu'] || t, why: this.down.why });
			this.down = null;
		}
		this.lastGood = t;
		this.trim();
		return fresh;
	};

	// Parse one history value; false when it repeats what was taken.
	Host.prototype.parse = function (ev, text) {
		var lines = text.split('\n');
		var h = /^drains (\d+) (\d+)\.(\d{6}) hz (\d+)/.exec(lines[0]);
		if (!h)
			return false;
		var when = Number(h[2]) + Number(h[3]) / 1e6, hz = Number(h[4]);
		if (when <= this.last[ev])
			return false;	// pmproxy's repeat after a reconnect
		var keys = [], counts = [], usecs = [], derived = true, prev = null, self = this;
		for (var i = 1; i < lines.length; i++) {
			var l = lines[i], c0 = l.charCodeAt(0), m;
			if (c0 !== 104 && (c0 < 48 || c0 > 57) && this.paths.size)
				this.paths.clear();	// t, f, s: a definition, maybe a redefinition
			if (l.startsWith('t ')) {
				m = /^t (\d+) (\d+)(?:\.(\d+))? (\d+) ([^\t]*)\t?(.*)$/.exec(l);
				if (m)
					this.threads.set(+m[1], { pid: m[3] ? m[2] + '.' + m[3] : m[2], tid: m[4], comm: m[5],
						process: m[6] || m[5] });
			} else if (l.startsWith('f ')) {
				m = /^f (\d+) ?(.*)$/.exec(l);
				if (m)
					this.frames.set(+m[1], m[2]);
			} else if (l.startsWith('s ')) {
				m = /^s (\d+) ?(?:\^(\d+) ?)?(.*)$/.exec(l);
				if (m) {
					var fr = m[3] ? m[3].split(',').map(Number) : [];
					if (m[2] !== undefined)
						fr = (prev || []).slice(0, +m[2]).concat(fr);
					this.stacks.set(+m[1], fr);
					prev = fr;
				}
			} else if (l.startsWith('h ')) {
				if (ev === 'on-cpu')
					this.heatLine(l);
			} else if (c0 >= 48 && c0 <= 57) {
				var tok = l.split(' '), tid = +tok[0], sid = 0;
				for (var k = 1; k < tok.length; k++) {
					var parts = tok[k].split(':');
					sid = parts[0].charAt(0) === '+' ? sid + Number(parts[0].slice(1)) : Number(parts[0]);
					var count = parts.length > 1 ? Number(parts[1]) : 1;
					var usec = parts.length > 2 ? Number(parts[2]) : usecOf(count, hz);
					keys.push(this.pair(tid, sid));
					counts.push(count);
					usecs.push(usec);
					derived = derived && usec === usecOf(count, hz);
				}
			}
		}
		this.last[ev] = when;
		var big = counts.some(function (c) { return !(c >= 0 && c <= 65535 && c % 1 === 0); });
		this.values[ev].push({ t: when, drains: Number(h[1]), hz: hz, keys: Uint32Array.from(keys),
			counts: big ? Float64Array.from(counts) : Uint16Array.from(counts),
			usec: derived ? null : Float64Array.from(usecs) });
		return true;
	};

	Host.prototype.pair = function (tid, sid) {
		var k = tid * 4294967296 + sid, p = this.pairOf.get(k);
		if (p === undefined) {
			p = this.pairs.length;
			this.pairs.push([tid, sid]);
			this.pairOf.set(k, p);
		}
		return p;
	};

	// A sample's microseconds where the value gives none: its share of a second at hz
	function usecOf(count, hz) {
		return hz === 1000000 ? count : Math.floor(count * 1e6 / hz);
	}

	// "h SEC.USEC N C0 C1 ...": a slice goes to the latest second whose
	// midpoint of it is not after the drain (client/profile/heatmap.c).
	Host.prototype.heatLine = function (l) {
		var tok = l.split(' '), m = /^(\d+)\.(\d{6})$/.exec(tok[1] || ''), n = Number(tok[2]);
		if (!m || !(n > 0 && n <= 1000))
			return;
		var t = Number(m[1]) + Number(m[2]) / 1e6, i = 0;
		if (n !== this.rows) {
			this.rows = n;
			this.heat.clear();
		}
		for (var k = 3; k < tok.length && i < n; k++) {
			var cr = tok[k].split('*'), c = Number(cr[0]), run = cr.length > 1 ? Number(cr[1]) : 1;
			for (var r = 0; r < run && i < n; r++, i++) {
				var s = Math.floor(t);
				if (s + (i + 0.5) / n > t)
					s--;
				var col = this.heat.get(s);
				if (!col) {
					col = new Float64Array(n);
					this.heat.set(s, col);
				}
				col[i] += c;
			}
		}
		for (; i < n; i++) {	// trailing zeros: covered, not missing
			var s2 = Math.floor(t);
			if (s2 + (i + 0.5) / n > t)
				s2--;
			if (!this.heat.has(s2))
				this.heat.set(s2, new Float64Array(n));
		}
	};

	Host.prototype.trim = function () {
		var newest = this.last['on-cpu'] || this.lastGood || 0, cut = newest - KEEP, self = this;
		Object.keys(this.values).forEach(function (e) {
			var v = self.values[e], k = 0;
			while (k < v.length && v[k].t < cut)
				k++;
			if (k)
				v.splice(0, k);
		});
		this.heat.forEach(function (_, s) { if (s < cut) self.heat.delete(s); });
		this.gaps = this.gaps.filter(function (g) { return g.end >= cut; });
	};

	// ---- selection: (from, to] on drain times, as pmflame -S/-T ----
	// Names as small numbers, so that the top table sums in typed arrays;
	// kept across trees (a name keeps its number), renumbered when huge.
	var nameIds = new Map(), idNames = [];
	function nameId(name) {
		var id = nameIds.get(name);
		if (id === undefined) {
			id = idNames.length;
			nameIds.set(name, id);
			idNames.push(name);
		}
		return id;
	}

	// Also the top table's sums by name number, made as the paths go in
	// (a walk of the finished tree cost more): self, and total with a name
	// counted once per path (seen: the path that last counted it).
	function Tree() {
		this.root = { name: '', id: -1, total: 0, self: 0, kids: new Map(), parent: null };
		this.depth = 0;		// the longest path's frames
		this.paths = 0;
		this.grow(1024);
	}
	Tree.prototype.grow = function (n) {
		var self = new Float64Array(n), total = new Float64Array(n), seen = new Int32Array(n);
		if (this.self) {
			self.set(this.self);
			total.set(this.total);
			seen.set(this.seen);
		}
		this.self = self;
		this.total = total;
		this.seen = seen;
	};
	Tree.prototype.add = function (path, count) {
		var n = this.root, stamp = ++this.paths;
		n.total += count;
		for (var i = 0; i < path.length; i++) {
			var k = n.kids.get(path[i]);
			if (!k) {
				k = { name: path[i], id: nameId(path[i]), total: 0, self: 0, kids: new Map(), parent: n };
				n.kids.set(path[i], k);
				if (k.id >= this.seen.length)
					this.grow(2 * idNames.length);
			}
			k.total += count;
			if (this.seen[k.id] !== stamp) {
				this.seen[k.id] = stamp;
				this.total[k.id] += count;
			}
			n = k;
		}
		n.self += count;
		if (n.id >= 0)
			this.self[n.id] += count;
		if (path.length > this.depth)
			this.depth = path.length;
	};

	function range() {
		var h = hosts[state.host], newest = newestSecond(h);
		if (state.win === 'sel') {
			var s = state.sel.split('-').map(Number);
			return { from: Math.min(s[0], s[1]), to: Math.max(s[0], s[1]) + 1 };
		}
		return { from: newest + 1 - Number(state.win), to: newest + 1 };
	}

	// The selected stacks as {path -> count}: process (or Total;[p] process
	// once a second one shows), [t] thread, frames.
	function selectStacks() {
		var h = hosts[state.host], r = range(), acc = new Map(), procs = new Set(), usec = new Map();
		h.values[state.event].forEach(function (v) {
			if (v.t <= r.from || v.t > r.to)
				return;
			for (var i = 0; i < v.keys.length; i++) {
				var key = v.keys[i], pr = h.pairs[key];
				var th = h.threads.get(pr[0]), st = h.stacks.get(pr[1]);
				if (!th || !st)
					continue;
				if (state.proc && th.process !== state.proc)
					continue;
				if (state.tid && th.tid !== state.tid)
					continue;
				var count = v.counts[i];
				acc.set(key, (acc.get(key) || 0) + count);
				usec.set(key, (usec.get(key) || 0) + (v.usec ? v.usec[i] : usecOf(count, v.hz)));
				procs.add(th.process);
			}
		});
		var out = new Map(), us = new Map(), arrays = new Map(), multi = procs.size > 1;
		acc.forEach(function (count, key) {
			var c = h.paths.get(key);
			if (!c) {	// a (thread, stack)'s names, made once
				var pr = h.pairs[key], th = h.threads.get(pr[0]), st = h.stacks.get(pr[1]);
				var frames = ['[t] ' + th.comm];
				st.forEach(function (f) { frames.push(h.frames.has(f) ? h.frames.get(f) : '[unknown]'); });
				c = { process: th.process, frames: frames, text: frames.join(';') };
				h.paths.set(key, c);
			}
			var p = (multi ? 'Total;[p] ' + c.process : c.process) + ';' + c.text;
			if (!arrays.has(p))
				arrays.set(p, (multi ? ['Total', '[p] ' + c.process] : [c.process]).concat(c.frames));
			out.set(p, (out.get(p) || 0) + count);
			us.set(p, (us.get(p) || 0) + usec.get(key));
		});
		return { counts: out, usec: us, arrays: arrays, range: r };
	}

	function buildTree(sel) {
		var t = new Tree();
		if (nameIds.size > 200000) {
			nameIds.clear();
			idNames.length = 0;
		}
		sel.counts.forEach(function (c, p) { t.add(sel.arrays.get(p), c); });
		return t;
	}

	// pmflame's folded: a line per path with self counts, sorted bytewise
	function folded(sel) {
		var enc = new TextEncoder(), lines = [];
		sel.counts.forEach(function (c, p) { lines.push({ k: enc.encode(p), s: p + ' ' + c }); });
		lines.sort(function (a, b) {
			for (var i = 0; i < a.k.length && i < b.k.length; i++)
				if (a.k[i] !== b.k[i])
					return a.k[i] - b.k[i];
			return a.k.length - b.k.length;
		});
		return lines.map(function (l) { return l.s + '\n'; }).join('');
	}

	function frameType(name, depth, multi) {
		if (depth === 0)
			return multi ? 'H' : 'P';
		if (name.startsWith('[p] '))
			return 'P';
		if (name.startsWith('[t] '))
			return 'T';
		if (name.startsWith('[k] '))
			return 'K';
		if (name.startsWith('[l] '))
			return 'L';
		if (name.startsWith('[c] '))
			return 'C';
		if (name.charAt(0) === '[')
			return '?';
		return 'A';
	}

	// DeepFlow ProfileTracing JSON of the selection, values in µs
	function deepflow(sel) {
		var t = new Tree(), fid = new Map(), functions = [], types = [], fself = [], ftotal = [], nodes = [];
		var multi = false;
		sel.usec.forEach(function (u, p) { t.add(p.split(';'), u); if (p.startsWith('Total;')) multi = true; });
		function walk(n, parent, depth, onPath) {
			var key = n.name, id = fid.get(key);
			if (id === undefined) {
				id = functions.length;
				fid.set(key, id);
				functions.push(key);
				types.push(frameType(key, depth, multi));
				fself.push(0);
				ftotal.push(0);
			}
			fself[id] += n.self;
			if (!onPath.has(id))
				ftotal[id] += n.total;
			var me = nodes.length;
			nodes.push([id, parent, n.self, n.total]);
			onPath.add(id);
			var again = new Set(onPath);
			n.kids.forEach(function (k) { walk(k, me, depth + 1, again); });
		}
		t.root.kids.forEach(function (k) { walk(k, -1, 0, new Set()); });
		return JSON.stringify({ OPT_STATUS: 'SUCCESS', DESCRIPTION: gapText(sel.range),
			result: { functions: functions, function_types: types,
				function_values: { columns: ['self_value', 'total_value'],
					values: fself.map(function (s, i) { return [s, ftotal[i]]; }) },
				node_values: { columns: ['function_id', 'parent_node_id', 'self_value', 'total_value'],
					values: nodes } }, debug: null });
	}

	function gapText(r) {
		return hosts[state.host].gaps.filter(function (g) { return g.end > r.from && g.start < r.to; })
			.map(function (g) { return 'gap ' + iso(g.start) + ' to ' + iso(g.end) + ': ' + g.why; }).join('; ');
	}

	function iso(t) {
		return new Date(t * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
	}

	function hhmmss(s) {
		return new Date(s * 1000).toISOString().slice(11, 19);
	}

	// ---- drawing ----
	var $ = function (id) { return document.getElementById(id); };
	var hosts = [];
	var tip = null;

	function say(el, text) {
		el.textContent = text;
	}

	var hues = new Map();
	function hue(name) {
		var got = hues.get(name);
		if (got)
			return got;
		if (hues.size > 100000)
			hues.clear();
		got = hueOf(name);
		hues.set(name, got);
		return got;
	}

	function hueOf(name) {
		var h = 2166136261;
		for (var i = 0; i < name.length; i++)
			h = Math.imul(h ^ name.charCodeAt(i), 16777619);
		var v = (h >>> 0) % 40;
		var base = { K: 200, L: 40, T: 280, P: 120, H: 120, C: 160, '?': 0, A: 15 }[frameType(name, 1, false)];
		return 'hsl(' + (base + v - 20) + ',70%,' + (60 + v % 15) + '%)';
	}

	var frozen = null;	// the newest second shown when paused
	function newestSecond(h) {
		if (h.range)
			return Math.ceil(h.range.end);
		return frozen !== null ? frozen : Math.floor(h.last['on-cpu'] || h.lastGood || Date.now() / 1000 + h.skew);
	}

	function heatColumns() {
		var h = hosts[state.host], newest = newestSecond(h);
		return { first: newest - state.cols + 1, last: newest };
	}

	// The SVG heat map's colours (client/emit/emit_heatmap.c make_palette):
	// no data, zero, then NSHADES steps of ColorBrewer YlOrRd, as RGBA
	// words in the canvas's byte order.
	var NSHADES = 32;
	var PALETTE = (function () {
		var stops = [[255, 255, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
		var pal = new Uint32Array(NSHADES + 2), le = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
		function word(c) {
			return (le ? (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) : (c[0] << 24 | c[1] << 16 | c[2] << 8 | 255)) >>> 0;
		}
		pal[0] = word([0xe4, 0xe4, 0xe4]);
		pal[1] = word([255, 255, 255]);
		for (var i = 0; i < NSHADES; i++) {
			var pos = i / (NSHADES - 1) * 4, k = pos >= 4 ? 3 : Math.floor(pos), f = pos - k;
			pal[2 + i] = word([0, 1, 2].map(function (j) { return Math.floor(stops[k][j] + f * (stops[k + 1][j] - stops[k][j]) + 0.5); }));
		}
		return pal;
	})();

	// Shades by rank, as the SVG's (client/emit/heatmap_scale.h): with at
	// most 8 distinct non-zero counts each gets an evenly spaced shade,
	// else its mid-rank percentile among the non-zero cells; smallest
	// lightest, largest darkest, whatever the host's CPUs or frequency.
	// values: the non-zero counts (sorted here).  A Map count -> shade.
	function heatScale(values) {
		values.sort();
		var n = values.length, distinct = [], rank = [], scale = new Map();
		for (var i = 0, j; i < n; i = j) {
			for (j = i; j < n && values[j] === values[i]; j++)
				;
			distinct.push(values[i]);
			rank.push((i + (j - i) / 2) / n);
		}
		var k = distinct.length, lo = rank[0], hi = rank[k - 1];
		distinct.forEach(function (v, i) {
			var at = k <= 8 ? (k > 1 ? i / (k - 1) : 1) : (rank[i] - lo) / (hi - lo);
			scale.set(v, Math.round(at * (NSHADES - 1)));
		});
		return scale;
	}

	// A pixel per cell on a small canvas (ImageData), scaled up in one
	// drawImage: 15,000 fillRects with a colour string each cost more than
	// the rest of an update with 2,000 stacks.
	var heatCells = null;
	function drawHeat() {
		var cv = $('heat'), h = hosts[state.host], c = heatColumns(), rows = h.rows, cols = state.cols;
		var w = cv.clientWidth, cw = w / cols, ch = Math.max(2, Math.floor(200 / rows));
		if (cv.width !== w || cv.height !== ch * rows) {
			cv.width = w;
			cv.height = ch * rows;
		}
		var g = cv.getContext('2d'), vals = [], drawn = 0, s, r;
		for (s = c.first; s <= c.last; s++) {
			var col = h.heat.get(s);
			if (col)
				for (r = 0; r < rows; r++)
					if (col[r] > 0)
						vals.push(col[r]);
		}
		var scale = heatScale(Float64Array.from(vals));
		if (!heatCells || heatCells.width !== cols || heatCells.height !== rows) {
			heatCells = document.createElement('canvas');
			heatCells.width = cols;
			heatCells.height = rows;
		}
		var hg = heatCells.getContext('2d'), img = hg.createImageData(cols, rows), px = new Uint32Array(img.data.buffer);
		for (s = c.first; s <= c.last; s++) {
			var cells = h.heat.get(s), x = s - c.first;
			if (cells)
				drawn++;
			// offset 0 at the bottom, as in pmflame's SVG heat map
			for (r = 0; r < rows; r++)
				px[(rows - 1 - r) * cols + x] = PALETTE[!cells ? 0 : cells[r] > 0 ? 2 + scale.get(cells[r]) : 1];
		}
		hg.putImageData(img, 0, 0);
		g.imageSmoothingEnabled = false;
		g.drawImage(heatCells, 0, 0, cols, rows, 0, 0, cw * cols, ch * rows);
		// gaps: hatched over their seconds
		h.gaps.concat(h.down ? [{ start: h.down.start, end: Date.now() / 1000 + h.skew, why: h.down.why }] : [])
			.forEach(function (gp) {
				var a = Math.max(Math.floor(gp.start) + 1, c.first), b = Math.min(Math.floor(gp.end), c.last);
				if (b < a)
					b = a;
				if (a > c.last || b < c.first)
					return;
				g.fillStyle = 'rgba(40,40,120,0.55)';
				g.fillRect((a - c.first) * cw, 0, Math.max(2, (b - a + 1) * cw), cv.height);
			});
		if (state.win === 'sel') {
			var sp = state.sel.split('-').map(Number), a = Math.min(sp[0], sp[1]), b = Math.max(sp[0], sp[1]);
			g.strokeStyle = '#0050c0';
			g.lineWidth = 2;
			g.strokeRect((a - c.first) * cw, 1, (b - a + 1) * cw, cv.height - 2);
		}
		cv.dataset.columns = String(drawn);
		cv.dataset.first = String(c.first);
		cv.dataset.cw = String(cw);
		say($('heat-axis'), hhmmss(c.first) + ' … ' + hhmmss(c.last) + ' UTC, ' + rows + ' slices of ' +
			Math.round(1000 / rows) + ' ms per column, 0 ms at the bottom');
	}

	var layout = [];	// frames on screen: {x, y, w, node}
	var tree = null, selection = null;

	function nodePath(n) {
		var p = [];
		for (; n && n.parent; n = n.parent)
			p.unshift(n.name);
		return p.join(';');
	}

	function findPath(path) {
		var n = tree.root;
		if (!path)
			return n;
		var parts = path.split(';');
		for (var i = 0; i < parts.length && n; i++)
			n = n.kids.get(parts[i]);
		return n || tree.root;
	}

	function matcher() {
		if (!state.q)
			return null;
		try {
			var re = new RegExp(state.q);
			return function (s) { return re.test(s); };
		} catch (e) {
			return function (s) { return s.indexOf(state.q) >= 0; };
		}
	}

	// a name's width in the flame graph's font, measured once
	var widths = new Map();
	function textWidth(g, name) {
		var got = widths.get(name);
		if (got === undefined) {
			if (widths.size > 100000)
				widths.clear();
			got = g.measureText(name).width;
			widths.set(name, got);
		}
		return got;
	}

	function drawFlame() {
		var cv = $('flame'), w = cv.clientWidth, zoomed = findPath(state.zoom), match = matcher();
		var height = Math.max(1, tree.depth) * ROW_H + 4;
		if (cv.width !== w || cv.height !== height) {
			cv.width = w;
			cv.height = height;
		}
		var g = cv.getContext('2d'), icicle = state.view === 'icicle', total = zoomed.total;
		g.clearRect(0, 0, cv.width, cv.height);
		g.font = '11px sans-serif';
		g.textBaseline = 'middle';
		layout = [];
		var matched = 0;
		function y(d) {
			return icicle ? (d - 1) * ROW_H : cv.height - d * ROW_H;
		}
		function box(n, d, x, width, dim, inMatch) {
			if (width < 0.3)
				return;
			var hit = match && match(n.name);
			if (hit && !inMatch)
				matched += n.total;
			g.fillStyle = hit ? '#e040e0' : dim ? '#e8e8e8' : hue(n.name);
			g.fillRect(x, y(d), width - 0.5, ROW_H - 1);
			if (width > 30) {
				g.fillStyle = '#000';
				if (textWidth(g, n.name) <= width - 5)	// fits: no clip to set up
					g.fillText(n.name, x + 3, y(d) + ROW_H / 2);
				else {
					g.save();
					g.beginPath();
					g.rect(x, y(d), width - 2, ROW_H);
					g.clip();
					g.fillText(n.name, x + 3, y(d) + ROW_H / 2);
					g.restore();
				}
			}
			layout.push({ x: x, y: y(d), w: width, node: n });
			return hit;
		}
		// ancestors of the zoomed frame, full width and dimmed
		var chain = [];
		for (var a = zoomed; a && a.parent; a = a.parent)
			chain.unshift(a);
		chain.slice(0, -1).forEach(function (n, i) { box(n, i + 1, 0, w, true, false); });
		(function place(n, d, x, width, inMatch) {
			if (width < 1 && n !== zoomed)
				return;	// too narrow to see, and so is all above it
			var hit = n === tree.root ? false : box(n, d, x, width, false, inMatch);
			var kx = x, kids = n.sorted || (n.sorted = Array.from(n.kids.values()).sort(function (p, q) { return p.name < q.name ? -1 : p.name > q.name ? 1 : 0; }));
			kids.forEach(function (k) {
				var kw = total ? width * k.total / n.total : 0;
				if (n.total)
					place(k, d + 1, kx, kw, inMatch || hit);
				kx += kw;
			});
		})(zoomed, chain.length, 0, w, false);
		var sum = tree.root.total;
		say($('matched'), match ? 'matched: ' + (sum ? (100 * matched / sum).toFixed(1) : '0.0') + '% (' + matched + ' of ' + sum + ')' : '');
		cv.dataset.total = String(sum);
	}

	// self and total by name (Tree.add's sums); the rows rebuilt only
	// when their text changed
	function drawTop() {
		var self = tree.self, total = tree.total, ids = [];
		for (var id = 0; id < tree.seen.length; id++)
			if (tree.seen[id])
				ids.push(id);
		var by = $('top-by').value === 'total' ? total : self, sum = tree.root.total || 1;
		var rows = ids.sort(function (a, b) { return by[b] - by[a] || (idNames[a] < idNames[b] ? -1 : 1); }).slice(0, 30);
		var texts = rows.map(function (id) {
			return [idNames[id], String(self[id]), (100 * self[id] / sum).toFixed(1) + '%',
				String(total[id]), (100 * total[id] / sum).toFixed(1) + '%'];
		});
		var body = $('top').tBodies[0], key = JSON.stringify(texts);
		if (body.dataset.key === key)
			return;
		body.dataset.key = key;
		while (body.firstChild)
			body.removeChild(body.firstChild);
		texts.forEach(function (text) {
			var tr = document.createElement('tr'), name = text[0];
			text.forEach(function (s) {
				var td = document.createElement('td');
				td.textContent = s;
				tr.appendChild(td);
			});
			tr.addEventListener('click', function () { zoomToName(name); });
			body.appendChild(tr);
		});
	}

	// the heaviest frame of that name
	function zoomToName(name) {
		var best = null;
		(function walk(n) {
			if (n.name === name && (!best || n.total > best.total))
				best = n;
			n.kids.forEach(walk);
		})(tree.root);
		if (best) {
			state.zoom = nodePath(best);
			update(false);
		}
	}

	function fillChoices() {
		var h = hosts[state.host], procs = new Set(), threads = new Map();
		h.threads.forEach(function (t) {
			procs.add(t.process);
			if (!state.proc || t.process === state.proc)
				threads.set(t.tid, '[t] ' + t.comm + ' ' + t.tid);
		});
		setOptions($('proc'), [['', 'all processes']].concat(Array.from(procs).sort().map(function (p) { return [p, p]; })), state.proc);
		setOptions($('tid'), [['', 'all threads']].concat(Array.from(threads.entries()).sort(function (a, b) { return a[0] - b[0]; })), state.tid);
		setOptions($('host'), hosts.map(function (x, i) { return [String(i), x.label]; }), String(state.host));
		// the fixed choices follow the state too (a link, the back button)
		$('win').value = state.win;
		$('event').value = state.event;
		$('view').value = state.view;
		if (document.activeElement !== $('search'))
			$('search').value = state.q;
	}

	function setOptions(sel, pairs, value) {
		var key = JSON.stringify(pairs);
		if (sel.dataset.key !== key) {
			while (sel.firstChild)
				sel.removeChild(sel.firstChild);
			pairs.forEach(function (p) {
				var o = document.createElement('option');
				o.value = p[0];
				o.textContent = p[1];
				sel.appendChild(o);
			});
			sel.dataset.key = key;
		}
		sel.value = value;
	}

	function status() {
		var h = hosts[state.host], r = selection.range;
		var parts = [h.label, h.down ? 'OUT: ' + h.down.why : h.range ? 'archive range' : 'live', 'gaps: ' + h.gaps.length,
			state.paused ? 'paused' : '', 'showing ' + hhmmss(r.from) + '–' + hhmmss(r.to) + ' UTC',
			tree.root.total + ' ' + UNITS[state.event]];
		say($('status'), parts.filter(Boolean).join(' · '));
		$('status').dataset.gaps = String(h.gaps.length);
		$('status').dataset.down = h.down ? '1' : '0';
		$('pause').textContent = state.paused ? 'resume' : 'pause';
	}

	var updates = 0, pending = false;
	function update(fromPoll) {
		if (fromPoll && state.paused) {
			status();
			return;
		}
		frozen = state.paused ? newestSecond(hosts[state.host]) : null;
		if (pending)
			return;
		pending = true;
		requestAnimationFrame(function () {
			pending = false;
			var t0 = performance.now();
			writeUrl();
			fillChoices();
			selection = selectStacks();
			tree = buildTree(selection);
			drawHeat();
			drawFlame();
			drawTop();
			status();
			updates++;
			document.body.dataset.updates = String(updates);
			document.body.dataset.lastMs = (performance.now() - t0).toFixed(1);
		});
	}

	function schedule(h, again) {
		// poll a quarter second after the next drain, so a value holds one drain
		var now = Date.now() / 1000 + h.skew, last = h.last['on-cpu'] || now, iv = h.interval;
		var wait = iv - (((now - last - 0.25) % iv) + iv) % iv;
		if (wait < 0.3)
			wait += iv;
		if (h.down || again)
			wait = h.down ? 1 : 0.2;
		setTimeout(function () {
			h.poll().then(function (fresh) {
				if (h === hosts[state.host] && fresh)
					update(true);
				// a drain not there yet (a late one, a loaded host): soon again,
				// so that a value holds one drain and ranges cut between drains
				schedule(h, !fresh && h.down === null && h.misses++ < 10);
				if (fresh)
					h.misses = 0;
			});
		}, wait * 1000);
	}

	function download(name, type, text) {
		var a = document.createElement('a');
		a.href = URL.createObjectURL(new Blob([text], { type: type }));
		a.download = name;
		document.body.appendChild(a);
		a.click();
		setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
	}

	function stem() {
		var r = selection.range;
		return (hosts[state.host].label + '-' + iso(r.from) + '_' + iso(r.to)).replace(/[^A-Za-z0-9._-]/g, '');
	}

	// heat-map mouse: hover says the cell, a drag brushes seconds
	function heatCell(ev) {
		var cv = $('heat'), b = cv.getBoundingClientRect(), h = hosts[state.host];
		var cw = Number(cv.dataset.cw), s = Number(cv.dataset.first) + Math.floor((ev.clientX - b.left) / cw);
		var row = Math.floor((ev.clientY - b.top) / (cv.height / h.rows));
		return { s: s, row: Math.max(0, Math.min(h.rows - 1, row)) };
	}

	function showTip(ev, text) {
		tip.textContent = text;
		tip.hidden = false;
		tip.style.left = (ev.pageX + 12) + 'px';
		tip.style.top = (ev.pageY + 12) + 'px';
	}

	function wire() {
		var brush = null;
		tip = $('tip');
		$('heat').addEventListener('mousedown', function (ev) { brush = heatCell(ev).s; });
		$('heat').addEventListener('mousemove', function (ev) {
			var c = heatCell(ev), h = hosts[state.host], col = h.heat.get(c.s);
			showTip(ev, hhmmss(c.s) + ' UTC, offset ' + Math.round(c.row * 1000 / h.rows) + ' ms, ' +
				(col ? col[c.row] + ' samples' : 'no data'));
			if (brush !== null && ev.buttons) {
				state.sel = Math.min(brush, c.s) + '-' + Math.max(brush, c.s);
				state.win = 'sel';
				$('win').value = 'sel';
				drawHeat();
			}
		});
		$('heat').addEventListener('mouseup', function (ev) {
			if (brush === null)
				return;
			var s = heatCell(ev).s;
			state.sel = Math.min(brush, s) + '-' + Math.max(brush, s);
			state.win = 'sel';
			state.zoom = '';
			brush = null;
			update(false);
		});
		$('heat').addEventListener('mouseleave', function () { tip.hidden = true; });
		$('flame').addEventListener('mousemove', function (ev) {
			var f = frameAt(ev);
			if (!f) {
				tip.hidden = true;
				return;
			}
			var sum = tree.root.total || 1;
			showTip(ev, f.node.name + ' (' + f.node.total + ' ' + UNITS[state.event] + ', ' +
				(100 * f.node.total / sum).toFixed(2) + '%)');
		});
		$('flame').addEventListener('mouseleave', function () { tip.hidden = true; });
		$('flame').addEventListener('click', function (ev) {
			var f = frameAt(ev);
			if (f) {
				state.zoom = nodePath(f.node);
				update(false);
			}
		});
		$('reset').addEventListener('click', function () { state.zoom = ''; update(false); });
		$('search').value = state.q;
		$('search').addEventListener('input', function () { state.q = $('search').value; update(false); });
		[['win', 'win'], ['event', 'event'], ['proc', 'proc'], ['tid', 'tid'], ['view', 'view']].forEach(function (p) {
			$(p[0]).value = state[p[1]];
			$(p[0]).addEventListener('change', function () {
				state[p[1]] = $(p[0]).value;
				if (p[0] === 'proc')
					state.tid = '';
				if (p[0] !== 'view')
					state.zoom = '';
				if (state.win === 'sel' && !state.sel)
					state.win = '10';
				update(false);
			});
		});
		$('host').addEventListener('change', function () { state.host = Number($('host').value); state.zoom = ''; update(false); });
		$('top-by').addEventListener('change', function () { update(false); });
		$('pause').addEventListener('click', function () { state.paused = !state.paused; update(false); });
		$('get-folded').addEventListener('click', function () {
			download(stem() + '.folded', 'text/plain', folded(selection));
		});
		$('get-json').addEventListener('click', function () {
			download(stem() + '.json', 'application/json', deepflow(selection));
		});
		window.addEventListener('hashchange', function () { readUrl(); update(false); });
		window.addEventListener('resize', function () { update(false); });
	}

	function frameAt(ev) {
		var b = $('flame').getBoundingClientRect(), x = ev.clientX - b.left, y = ev.clientY - b.top;
		for (var i = layout.length - 1; i >= 0; i--) {
			var f = layout[i];
			if (x >= f.x && x < f.x + f.w && y >= f.y && y < f.y + ROW_H)
				return f;
		}
		return null;
	}

	// what the qa tests and benches read; profile text only as data
	window.stackprofLive = {
		folded: function () { return folded(selection); },
		deepflow: function () { return deepflow(selection); },
		gaps: function () { return hosts[state.host].gaps.slice(); },
		columns: function () { return Array.from(hosts[state.host].heat.keys()).sort(); },
		bytes: function () { return hosts.reduce(function (a, h) { return a + h.bytes; }, 0); },
		frames: function () { return layout.map(function (f) { return { name: f.node.name, total: f.node.total, x: f.x, y: f.y, w: f.w }; }); },
		matched: function () { return $('matched').textContent; },
		values: function () { return hosts[state.host].values[state.event].map(function (v) { return [v.t, v.drains]; }); }
	};

	// a view file's range, brushed, unless the link says otherwise
	function fileView(h) {
		var p = new URLSearchParams(linkHash.replace(/^#/, ''));
		if (!h.range)
			return;
		state.event = h.event;
		if (!p.get('sel')) {
			state.sel = Math.floor(h.range.start) + '-' + (Math.ceil(h.range.end) - 1);
			state.win = 'sel';
		}
		if (!p.get('cols'))
			state.cols = Math.max(30, Math.min(KEEP, Math.ceil(h.range.end) - Math.floor(h.range.start) + 10));
	}

	var linkHash = location.hash;	// as linked: what the user chose, before any update
	readUrl();
	hosts = state.file ? [new Host(state.file)] : state.pmproxy.map(function (u) { return new Host(u); });
	wire();
	selection = selectStacks();
	tree = buildTree(selection);
	update(false);
	hosts.forEach(function (h) {
		if (state.file)
			h.load().then(function () { fileView(h); update(false); });
		else
			h.poll().then(function () { update(true); schedule(h); });
	});
})();
