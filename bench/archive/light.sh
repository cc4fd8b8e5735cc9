# bench/archive/light.sh - the issue's light host, sourced by bench/archive/run:
# stackprof_demo (three hot stacks), a python3 loop, and xz and gzip
# compressing in loops.  light_start DIR SECONDS starts it all in DIR; every
# process's command line names DIR, so LIGHT_REGEX selects exactly these
# (the machine is shared: other processes must not count).
LIGHT_MARK=stackprof-archive-bench

light_start() {
    local dir=$1 secs=$2
    mkdir -p "$dir"
    # 8 MB that compresses like text: xz takes seconds, gzip a fraction
    base64 -w 76 /dev/urandom 2>/dev/null | head -c 8000000 > "$dir/data"
    cat > "$dir/loop.py" <<'PY'
import json, sys

def primes(n):
    return [p for p in range(2, n) if all(p % d for d in range(2, int(p ** 0.5) + 1))]

def encode(rows):
    return json.dumps([{"i": i, "sq": i * i, "s": str(i)} for i in rows])

while True:
    encode(primes(3000))
PY
    cp "$BUILD/qa/stackprof_demo" "$dir/stackprof_demo"
    cp "$BUILD/qa/libdemo_spin.so" "$dir/" 2>/dev/null
    "$dir/stackprof_demo" "$secs" >/dev/null 2>&1 &
    light_pids+=($!)
    python3 "$dir/loop.py" >/dev/null 2>&1 &
    light_pids+=($!)
    bash -c "while :; do xz -6 -c $dir/data >/dev/null; done" &
    light_pids+=($!)
    bash -c "while :; do gzip -6 -c $dir/data >/dev/null; done" &
    light_pids+=($!)
}

light_stop() {
    local p
    for p in "${light_pids[@]}"; do pkill -P "$p" 2>/dev/null; kill "$p" 2>/dev/null; done
    wait "${light_pids[@]}" 2>/dev/null
    light_pids=()
}
LIGHT_REGEX="$LIGHT_MARK"
