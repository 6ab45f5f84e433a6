#!/usr/bin/python3
"""Tables (markdown) from bench/sched-loop.sh's raw files: the RESULT
lines of sched-loop.py and the OVERCOMMIT lines of the driver.

    bench/sched-loop-table.py OUT_DIR
"""
import json
import os
import sys


def results(path):
    out, over = [], {}
    if not os.path.exists(path):
        return out, over
    with open(path) as f:
        for line in f:
            if line.startswith('RESULT '):
                out.append(json.loads(line[7:]))
            elif line.startswith('OVERCOMMIT '):
                label = line[11:].split(':')[0]
                over[label] = line.split(': ', 1)[1].split()[0]
    return out, over


def ratio(ref, mod, lower_is_better=False):
    if not ref or not mod:
        return '-'
    return '%.1fx' % ((ref / mod) if lower_is_better else (mod / ref))


def loop_table(d):
    rs, over = results(os.path.join(d, 'loop.txt'))
    if not rs:
        return
    by = {r['label']: r for r in rs}
    print('| W | ref placed/s | mod placed/s | ratio | conflicts / retries per placement (ref; mod) '
          '| loop p50 / p99 ms (ref; mod) | httpd CPU ms per placement (ref; mod) '
          '| DB CPU ms per placement (ref; mod) | overcommit (ref; mod) | load avg after (mod) |')
    print('|' + '---|' * 10)
    for w in sorted({r['workers'] for r in rs}):
        r, m = by.get('ref W=%d' % w, {}), by.get('mod W=%d' % w, {})

        def g(x, k):
            return x.get(k, '-')
        print('| %d | %s | %s | %s | %s / %s; %s / %s | %s / %s; %s / %s | %s; %s | %s; %s | %s; %s | %s |' % (
            w, g(r, 'placed_per_s'), g(m, 'placed_per_s'),
            ratio(r.get('placed_per_s'), m.get('placed_per_s')),
            g(r, 'conflicts_per_placement'), g(r, 'retries_per_placement'),
            g(m, 'conflicts_per_placement'), g(m, 'retries_per_placement'),
            g(r, 'loop_p50_ms'), g(r, 'loop_p99_ms'), g(m, 'loop_p50_ms'), g(m, 'loop_p99_ms'),
            g(r, 'httpd_cpu_ms_per_op'), g(m, 'httpd_cpu_ms_per_op'),
            g(r, 'db_cpu_ms_per_op'), g(m, 'db_cpu_ms_per_op'),
            over.get('ref W=%d' % w, '-'), over.get('mod W=%d' % w, '-'),
            m.get('loadavg_before_after', ['-', '-'])[1]))


def pair_table(d, name, keys):
    rs, _ = results(os.path.join(d, name))
    if not rs:
        return
    ref = next((r for r in rs if r['label'].startswith('ref')), {})
    mod = next((r for r in rs if r['label'].startswith('mod')), {})
    print('\n%s:\n' % name)
    print('| operation | ref p50 / p99 ms | mod p50 / p99 ms | p50 ratio | '
          'DB CPU ms per op (ref; mod) | load avg after (mod) |')
    print('|---|---|---|---|---|---|')
    for k in keys:
        a, b = ref.get(k, {}), mod.get(k, {})
        if not b:
            continue
        print('| %s | %s / %s | %s / %s | %s | %s; %s | %s |' % (
            k, a.get('p50_ms', '-'), a.get('p99_ms', '-'), b.get('p50_ms'), b.get('p99_ms'),
            ratio(a.get('p50_ms'), b.get('p50_ms'), True),
            a.get('db_cpu_ms_per_op', ref.get('db_cpu_ms_per_op', '-')),
            b.get('db_cpu_ms_per_op', mod.get('db_cpu_ms_per_op', '-')),
            mod.get('loadavg_before_after', ['-', '-'])[1]))


def million_table(d):
    rs, _ = results(os.path.join(d, 'million.txt'))
    if not rs:
        return
    print('\nmillion.txt:\n')
    print('| providers | operation | p50 ms | p99 ms | DB CPU ms per op | httpd CPU ms per op '
          '| load avg after |')
    print('|---|---|---|---|---|---|---|')
    for r in rs:
        n, what = r['label'].split()[1:3]
        s = r.get('get') or r.get('put')
        print('| %s | %s | %s | %s | %s | %s | %s |' % (
            n, what, s['p50_ms'], s['p99_ms'], r.get('db_cpu_ms_per_op'),
            r.get('httpd_cpu_ms_per_op'), r['loadavg_before_after'][1]))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else '.'
    if not os.path.isdir(d):
        raise SystemExit('usage: sched-loop-table.py OUT_DIR')
    loop_table(d)
    pair_table(d, 'move.txt', ['post', 'with_gets'])
    pair_table(d, 'usages.txt', ['project_user', 'project', 'project_user_1.38',
                                 'project_1.38', 'project_type_1.38'])
    pair_table(d, 'durable.txt', ['put'])
    million_table(d)


if __name__ == '__main__':
    main()
