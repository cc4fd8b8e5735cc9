# compare.awk - our stacks against perf's for the same processes of the
# same run: per workload, the share of samples whose stack reaches the
# program's entry, and the top 10 leaf functions (perf's ranking) with each
# tool's share of samples.
#
#   ENTRY_RE=... ENTRY_NAME_RE=... awk -f compare.awk PIDS OURS PERF
#
#   ENTRY_RE       a whole stack of ours that reaches the entry (qa/unwind.rc)
#   ENTRY_NAME_RE  one frame name that is the entry or calls it
#   PIDS  "NAME PID" lines: which workload each process belongs to
#   OURS  qa/common.rc _collect_records lines:
#         "pid tid count value time comm|process|frame;...;frame" (root first)
#   PERF  `perf script --no-inline -F comm,pid,tid,ip,sym,dso`: a header
#         "comm pid/tid", then one "addr sym (dso)" line per frame,
#         innermost first, then a blank line
#
# Names are compared without our "[k] "/"[l] " prefixes and "@VERSION"
# suffixes; a frame neither tool can name is "[basename of its file]".

function base(path) { sub(/.*\//, "", path); return path }

function ours_name(f) {
	sub(/^\[[kl]\] /, "", f)
	if (f ~ /^\[unknown\]/) return "[unknown]"
	if (f ~ /^\[\//) { sub(/^\[/, "", f); sub(/\]$/, "", f); return "[" base(f) "]" }
	sub(/@.*/, "", f)
	return f
}

function perf_name(sym, dso) {
	if (sym == "[unknown]" || sym == "") return dso ~ /^\// ? "[" base(dso) "]" : "[unknown]"
	sub(/@.*/, "", sym)
	return sym
}

function perf_sample_end() {
	if (pid in workload) {
		w = workload[pid]
		ptotal[w]++
		if (reached) preach[w]++
		pleaf[w, leaf]++
		leaves[w, leaf] = 1
	}
	inside = 0
}

BEGIN { entry = ENVIRON["ENTRY_RE"]; entry_name = ENVIRON["ENTRY_NAME_RE"] }

FILENAME == ARGV[1] { workload[$2] = $1; names[$1] = 1; next }

FILENAME == ARGV[2] {
	if (!($1 in workload)) next
	w = workload[$1]
	stack = $0
	sub(/^([^ ]+ ){5}[^|]*\|[^|]*\|/, "", stack)
	n = split(stack, fr, ";")
	# the leaf: the innermost frame, kernel or user
	l = ours_name(fr[n])
	ototal[w] += $3
	if (stack ~ entry) oreach[w] += $3
	oleaf[w, l] += $3
	leaves[w, l] = 1
	next
}

# perf script
/^[^ \t]/ {
	if (inside) perf_sample_end()
	inside = 1; first = 1; reached = 0; leaf = ""
	pid = ""
	for (i = NF; i > 0; i--) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, pt, "/"); pid = pt[1]; break }
	next
}
/^[ \t]+[0-9a-f]+ / && inside {
	line = $0
	sub(/^[ \t]+[0-9a-f]+ /, "", line)
	dso = line; sub(/.* \(/, "", dso); sub(/\)$/, "", dso)
	sym = line; sub(/ \([^(]*\)$/, "", sym)
	name = perf_name(sym, dso)
	if (first) { leaf = name; first = 0 }
	if (name ~ entry_name) reached = 1
	next
}
/^$/ { if (inside) perf_sample_end() }

END {
	if (inside) perf_sample_end()
	worst_all = 0
	for (w in names) {
		printf "%s: samples ours %d, perf %d; reach the entry: ours %.1f%%, perf %.1f%%\n", w,
		       ototal[w], ptotal[w], ototal[w] ? 100 * oreach[w] / ototal[w] : 0,
		       ptotal[w] ? 100 * preach[w] / ptotal[w] : 0
		# perf's top 10 leaves
		delete top
		nt = 0
		for (k in leaves) {
			split(k, kk, SUBSEP)
			if (kk[1] != w) continue
			cand[++nc] = kk[2]
		}
		for (t = 1; t <= 10; t++) {
			best = ""; bv = -1
			for (c = 1; c <= nc; c++) {
				x = cand[c]
				if (x in top) continue
				v = pleaf[w, x] + 0
				if (v > bv || (v == bv && x < best)) { best = x; bv = v }
			}
			if (best == "" || bv <= 0) break
			top[best] = 1; order[++nt] = best
		}
		nc = 0
		worst = 0
		printf "  %-44s %7s %7s %7s\n", "leaf (perf's top 10)", "ours%", "perf%", "diff"
		for (t = 1; t <= nt; t++) {
			x = order[t]
			o = ototal[w] ? 100 * oleaf[w, x] / ototal[w] : 0
			p = ptotal[w] ? 100 * pleaf[w, x] / ptotal[w] : 0
			d = o - p
			if (d < 0 ? -d > worst : d > worst) worst = d < 0 ? -d : d
			printf "  %-44s %7.1f %7.1f %+7.1f\n", substr(x, 1, 44), o, p, d
		}
		printf "  largest difference: %.1f points (target <= 5)\n", worst
		if (worst > worst_all) worst_all = worst
		summary = summary sprintf("%s %.1f %.1f %.1f\n", w, ototal[w] ? 100 * oreach[w] / ototal[w] : 0,
					  ptotal[w] ? 100 * preach[w] / ptotal[w] : 0, worst)
	}
	printf "%s", summary > "/dev/stderr"
}
