# bench/results.sh - each bench keeps its last results beside it.
#
# A bench script starts with
#     . "$(dirname "$0")/../results.sh" && bench_results "$@"
# (before it changes directory).  bench_results runs the script again with
# its standard output copied to the terminal and to a scratch file; when
# that run exits 0, its section of RESULTS.md in the script's folder (one
# section per script: run, walk) is replaced by what it printed, headed by
# the date, the commit, the machine's CPUs and load, and the command with
# the settings it read from the environment.  The file is rewritten
# through a temporary file and a rename, so a failed or interrupted run
# leaves the last good results.  BENCH_RESULTS=0 runs without recording.

# the environment settings a script reads: ${NAME:-default} in its text
_bench_settings() {
    local v
    for v in $(grep -oE '\$\{[A-Z][A-Z0-9_]*:-' "$1" | sed -E 's/^\$\{//; s/:-$//' | sort -u); do
        [ -n "${!v+x}" ] && printf '%s=%q ' "$v" "${!v}"
    done
}

# _bench_record SCRIPT OUTPUT ARGS...: replace SCRIPT's section of RESULTS.md
_bench_record() {
    local script=$1 output=$2 dir name file tmp top commit when load cmd
    shift 2
    dir=$(dirname "$script") name=$(basename "$script") file=$dir/RESULTS.md
    top=$(cd "$dir/../.." && pwd)
    commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
    # the figures written by an earlier run are not a change to what runs
    git -C "$top" diff --quiet HEAD -- . ':!*RESULTS.md' 2>/dev/null ||
	commit="$commit with local changes"
    when=$(date -u '+%Y-%m-%d %H:%M UTC')
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    cmd="$(_bench_settings "$script")bench/${dir##*/}/$name${*:+ $*}"
    tmp=$(mktemp "$dir/.RESULTS.md.XXXXXX") || return 1
    {
        if [ -s "$file" ]; then
            awk -v name="$name" '
                $0 == "<!-- results: " name " -->" { skip = 1; next }
                $0 == "<!-- end results: " name " -->" { skip = 0; next }
                !skip' "$file"
        else
            printf '# bench/%s: last results\n\n' "${dir##*/}"
            printf 'Each section is the last run of one script, written by the script\n'
            printf 'itself (bench/results.sh); earlier runs are in git history.\n'
        fi | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
        printf '\n<!-- results: %s -->\n' "$name"
        printf '## `bench/%s/%s`: last run\n\n' "${dir##*/}" "$name"
        printf 'Run %s at %s, %s CPUs, load %s at the start:\n' "$when" "$commit" "$(nproc)" "$BENCH_LOAD0"
        printf '`%s` (load %s at the end).\n\n' "$cmd" "$load"
        printf '```\n'
        cat "$output"
        printf '```\n'
        printf '<!-- end results: %s -->\n' "$name"
    } > "$tmp" && chmod 644 "$tmp" && mv "$tmp" "$file" || { rm -f "$tmp"; return 1; }
    echo "results: $file" >&2
}

bench_results() {
    [ -n "${BENCH_RESULTS_INNER:-}" ] && return 0
    [ "${BENCH_RESULTS:-1}" = 0 ] && return 0
    local script out rc
    script=$(readlink -f "$0")
    out=$(mktemp /tmp/bench-results.XXXXXX) || exit 1
    BENCH_LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
    BENCH_RESULTS_INNER=1 "$script" "$@" | tee "$out"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] && [ -s "$out" ] && _bench_record "$script" "$out" "$@"
    rm -f "$out"
    exit "$rc"
}
