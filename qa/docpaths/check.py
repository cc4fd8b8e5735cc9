#!/usr/bin/python3
"""check.py TOP FILE... - every repository path FILE names exists in TOP.

A path is a word whose first component is a top-level entry of the
repository (`pmda/agent/drain.c`, `qa/fuzz/`), a bare file name with a
source extension (`sym_elf.c`), or a folder-relative one (`common/hash.c`,
found as the tail of some path).  Markdown is read inside `code spans`
and outside them; roff (man pages) everywhere.  A path may be a glob
(`history*.c`), hold braces (`{pmda,client}`) or upper-case placeholders
(`qa/fuzz/corpus/NAME/`, `bench/NAME/RESULTS.md`): it must then match at
least one file.  Paths under what .gitignore names (build/, qa/results/)
and the files the build generates are made at run time: accepted.
Prints each missing path as "FILE:LINE: PATH"; exit 1 if any."""
import os, re, subprocess, sys

SOURCE_EXT = ('.c', '.h', '.py', '.sh', '.rc', '.proto', '.awk', '.js', '.md', '.mk')
GENERATED = {'vmlinux.h', 'stackprof.skel.h', 'pprof.pb-c.c', 'pprof.pb-c.h'}
# NAME, FOLDER, START_END: upper-case words, also inside fuzz_NAME.c
PLACEHOLDER = re.compile(r'(?<![a-z0-9])[A-Z][A-Z0-9_]*[A-Z0-9](?![a-z0-9])')

def glob_match(name, pat):
    """fnmatch with '*' and '?' kept inside one path component."""
    rx = ''.join('[^/]*' if c == '*' else '[^/]' if c == '?' else re.escape(c) for c in pat)
    return re.fullmatch(rx, name) is not None

def repo_files(top):
    out = subprocess.run(['git', '-C', top, 'ls-files', '--cached', '--others',
                          '--exclude-standard'], capture_output=True, text=True, check=True)
    files = [f for f in out.stdout.split('\n') if f and os.path.exists(os.path.join(top, f))]
    dirs = set()
    for f in files:
        parts = f.split('/')
        for i in range(1, len(parts)):
            dirs.add('/'.join(parts[:i]) + '/')
    return files, dirs

def ignored(top, path):
    return any(subprocess.run(['git', '-C', top, 'check-ignore', '-q', p]).returncode == 0
               for p in (path, path.rstrip('/') + '/'))

def tails(path):
    """a/b/c.h -> b/c.h, c.h: what a folder-relative path may name."""
    parts = path.rstrip('/').split('/')
    end = '/' if path.endswith('/') else ''
    return ['/'.join(parts[k:]) + end for k in range(1, len(parts))]

def expand_braces(p):
    m = re.search(r'\{([^{}]*)\}', p)
    if not m:
        return [p]
    return [q for alt in m.group(1).split(',')
            for q in expand_braces(p[:m.start()] + alt + p[m.end():])]

def candidates(line, tops, markdown):
    """Words of a line that name repository paths."""
    words = []
    if markdown:
        for span in re.findall(r'`([^`]+)`', line):
            words += re.split(r'[\s"\'()]+', span)
        line = re.sub(r'`[^`]*`', ' ', line)
    else:
        line = re.sub(r'\\f[BIRP]|\\&|\\\(..', '', line).replace('\\-', '-')
    top_re = '|'.join(re.escape(t) for t in sorted(tops, key=len, reverse=True))
    words += re.findall(r'(?<![\w/.$~-])(?:%s)(?:/[\w./*{},+-]*)?' % top_re, line)
    out = []
    for w in words:
        w = w.strip().rstrip('.,;:)').strip('"\'')
        if not w or '://' in w or w[0] in '/$~-.' or '=' in w:
            continue
        first = w.split('/')[0]
        if first in tops:
            out.append(w)
        elif w.endswith(SOURCE_EXT) and re.fullmatch(r'[\w./*{},+-]+', w):
            out.append(w)
    return out

def exists(w, top, files, dirs):
    if w in GENERATED or os.path.basename(w.rstrip('/')) in GENERATED:
        return True
    for p in expand_braces(w):
        pat = PLACEHOLDER.sub('*', p) if not os.path.exists(os.path.join(top, p)) else p
        if os.path.exists(os.path.join(top, p)) or ignored(top, p):
            continue
        # a program by its name: qa/src/fetch_timer is qa/src/fetch_timer.c built
        if '.' not in os.path.basename(p) and os.path.exists(os.path.join(top, p + '.c')):
            continue
        is_dir = pat.endswith('/')
        pool = dirs if is_dir else files
        if pat.split('/')[0] in TOPS:
            hit = any(glob_match(f, pat) for f in pool)
        elif '/' in pat.rstrip('/'):
            hit = any(glob_match(tail, pat) for f in pool for tail in tails(f))
        else:
            hit = any(glob_match(os.path.basename(f), pat) for f in files)
        if not hit:
            return False
    return True

top = sys.argv[1]
files, dirs = repo_files(top)
TOPS = {f.split('/')[0] for f in files}
missing = checked = 0
for name in sys.argv[2:]:
    md = name.endswith('.md')
    with open(os.path.join(top, name), encoding='utf-8') as fh:
        for n, line in enumerate(fh, 1):
            for w in candidates(line, TOPS, md):
                checked += 1
                if not exists(w, top, files, dirs):
                    print('%s:%d: %s' % (name, n, w))
                    missing += 1
print('paths checked: %d' % checked, file=sys.stderr)
sys.exit(1 if missing else 0)
