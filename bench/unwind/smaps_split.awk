# smaps_split.awk - one process's memory from /proc/PID/smaps, on one line:
# RSS, PSS and private dirty in all, then RSS by kind of mapping, so that
# the agent's own data (main heap, thread arenas and large blocks, which
# are anonymous mappings) can be told from the libraries it maps (file
# pages, shared with other processes: their PSS is what this one pays).
#   awk -f smaps_split.awk /proc/PID/smaps
/^[0-9a-f]+-[0-9a-f]+ / {
	name = NF >= 6 ? $6 : ""
	kind = name == "[heap]" ? "heap" : name == "" ? "anon" : name ~ /^\// ? "file" :
	       name ~ /^\[stack/ ? "stack" : name ~ /bpf/ ? "bpf" : "other"
	next
}
/^Rss:/			{ rss += $2; by[kind] += $2 }
/^Pss:/			{ pss += $2; if (kind == "file") fpss += $2 }
/^Private_Dirty:/	{ pd += $2 }
END {
	mb = 1024
	printf "rss %.1f MB, pss %.1f, private dirty %.1f; rss by kind: libraries %.1f (pss %.1f), heap %.1f, arenas and large blocks %.1f, bpf maps %.1f, stacks %.1f, other %.1f\n",
	       rss / mb, pss / mb, pd / mb, by["file"] / mb, fpss / mb, by["heap"] / mb,
	       by["anon"] / mb, by["bpf"] / mb, by["stack"] / mb, by["other"] / mb
}
