#!/usr/bin/python3
"""file_cycles.py ARCHIVE... - the cycles between source files of the build.

File A depends on file B when A's object uses a global symbol (function or
data) that B's object defines.  A cycle is a set of two or more files each
reaching every other one this way (a strongly connected component of that
graph); two files that call each other cannot be read, tested or moved
apart.  ARCHIVE is a module's static library, ROOT/FOLDER.a: its member
M.o is the file FOLDER/M.c.  Prints one line per cycle, its files sorted
and joined by spaces, the lines sorted."""
import os, subprocess, sys


def members(archive):
    """{object file: (defined symbols, undefined symbols)} of one archive."""
    out = subprocess.run(['nm', '-P', '-A', archive], capture_output=True, text=True,
                         check=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib.a[member.o]: symbol TYPE [value size]"
        head, _, rest = line.partition(': ')
        if '[' not in head or not rest:
            continue
        member = head[head.rindex('[') + 1:-1]
        fields = rest.split()
        if len(fields) < 2:
            continue
        defined, used = objs.setdefault(member, (set(), set()))
        name, kind = fields[0], fields[1]
        if kind == 'U':
            used.add(name)
        elif kind.isupper() and kind != 'W' and kind != 'V':
            defined.add(name)
    return objs


def strongly_connected(graph):
    """Tarjan's components of {node: set(nodes)}, iteratively."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = counter
                    counter += 1
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                comps.append(comp)
    return comps


def main(archives):
    defined_by, uses = {}, {}
    for archive in archives:
        folder = os.path.splitext(os.path.basename(archive))[0]
        side = os.path.basename(os.path.dirname(archive))
        prefix = folder if folder == side else side + '/' + folder
        for member, (defined, used) in members(archive).items():
            source = prefix + '/' + os.path.splitext(member)[0] + '.c'
            uses[source] = used
            for name in defined:
                defined_by.setdefault(name, set()).add(source)
    graph = {f: {g for name in used for g in defined_by.get(name, ()) if g != f}
             for f, used in uses.items()}
    cycles = [' '.join(sorted(c)) for c in strongly_connected(graph) if len(c) > 1]
    for line in sorted(cycles):
        print(line)


if __name__ == '__main__':
    main(sys.argv[1:])
