#!/usr/bin/python3
"""CPU time and memory of process trees, read from /proc (Linux).

    procstat.py ticks PID...          CPU seconds (user + system) used so far
                                      by each PID and all its descendants,
                                      one line: "<pid> <seconds>" per PID
    procstat.py rss PID...            memory (MiB, proportional set size) of each tree now
    procstat.py watch FILE SECS PID... until killed, every SECS seconds,
                                      keep the peak RSS (MiB) of each tree in
                                      FILE ("<pid> <peak MiB>" lines)

bench/cloud/run takes "ticks" before and after a run to give the cores an
httpd and its database used per second of simulated cloud. A tree's
exited children are counted through their parent's cutime/cstime, so a
recycled httpd child does not make its CPU time vanish.
"""
import os
import sys
import time

TICK = os.sysconf('SC_CLK_TCK')
PAGE = os.sysconf('SC_PAGE_SIZE')


def read_procs():
    """{pid: (ppid, cpu ticks incl. reaped children, rss pages)}."""
    procs = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as f:
                stat = f.read()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: split after it
        fields = stat[stat.rindex(')') + 2:].split()
        ppid = int(fields[1])
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        procs[int(name)] = (ppid, utime + stime + cutime + cstime,
                            int(fields[21]))
    return procs


def tree(procs, root):
    """root and all its descendants present in procs."""
    children = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in procs:
            out.append(pid)
            todo.extend(children.get(pid, []))
    return out


def ticks(roots):
    procs = read_procs()
    return {r: sum(procs[p][1] for p in tree(procs, r)) / TICK for r in roots}


def pss_kib(pid):
    """Proportional set size: a page shared by k processes (PostgreSQL's
    shared buffers, httpd's text) counts 1/k in each, so a tree's sum is
    what it really holds; the resident size when smaps_rollup is missing."""
    try:
        with open('/proc/%d/smaps_rollup' % pid) as f:
            for line in f:
                if line.startswith('Pss:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def rss(roots):
    procs = read_procs()
    out = {}
    for r in roots:
        total = 0
        for p in tree(procs, r):
            pss = pss_kib(p)
            total += pss * 1024 if pss is not None else procs[p][2] * PAGE
        out[r] = total / 2**20
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    verb = argv[1]
    if verb in ('ticks', 'rss'):
        got = (ticks if verb == 'ticks' else rss)([int(p) for p in argv[2:]])
        for pid, value in got.items():
            print('%d %.2f' % (pid, value))
    elif verb == 'watch':
        path, every = argv[2], float(argv[3])
        roots = [int(p) for p in argv[4:]]
        peak = dict.fromkeys(roots, 0.0)
        while True:
            for pid, value in rss(roots).items():
                peak[pid] = max(peak[pid], value)
            with open(path + '.tmp', 'w') as f:
                f.writelines('%d %.1f\n' % kv for kv in peak.items())
            os.replace(path + '.tmp', path)
            time.sleep(every)
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main(sys.argv)
