#!/usr/bin/python3
"""Client side of issue 26's benchmarks: nova's scheduler loop, a move,
quota counting, single claims and single reads against one Placement
server. bench/sched-loop.sh starts the servers and calls this; it can also
be run alone against any server (noauth2, token 'admin').

    sched-loop.py loop   --url U --workers W --seconds S [--pick 10]
    sched-loop.py move   --url U --count N
    sched-loop.py usages --url U --count N --project P --user X
    sched-loop.py claim  --url U --count N
    sched-loop.py get    --url U --count N --path '/allocation_candidates?...'

--httpd-pid and --db-pid (the parent pids of the server and of PostgreSQL)
add the CPU their process trees used per operation (/proc/PID/stat utime
+ stime of every process of the tree, plus cutime + cstime for children
that exited). Every mode prints one line 'RESULT {json}' at the end.

The loop, as nova's scheduler runs it (nova/scheduler/manager.py _schedule,
nova/scheduler/client/report.py claim_resources): GET
/allocation_candidates?limit=1000&resources=...&root_required=
!COMPUTE_STATUS_DISABLED at 1.36 (SAME_SUBTREE_VERSION; the forbidden
trait is nova's compute_status_filter, added to every request); the hosts
in the weighers' order with one of the first --pick chosen at random and
put first (host_subset_size; the spreading weighers, whose order placement
does not know, are modelled by the random choice); for each host in turn,
the claim: GET /allocations/{instance} at 1.28, then PUT
/allocations/{instance} at 1.36 with consumer_generation null, project_id,
user_id (consumer_type INSTANCE with --consumer-type, 1.38). A 409
placement.concurrent_update is retried (nova's @retries: four attempts,
sleeping uniform(0, 2 * attempt) s before each, times --retry-sleep-scale);
any other 409 (capacity) moves on to the next host, as nova does.
"""
import argparse
import http.client
import json
import multiprocessing
import os
import random
import sys
import time
import uuid

RESOURCES = 'DISK_GB:10,MEMORY_MB:512,VCPU:1'
NOVA_QUERY = ('/allocation_candidates?limit=1000&resources=%s'
              '&root_required=!COMPUTE_STATUS_DISABLED' % RESOURCES)
HZ = os.sysconf('SC_CLK_TCK')


# --- CPU of a process tree -------------------------------------------------

def _stat(pid):
    with open('/proc/%d/stat' % pid) as f:
        s = f.read()
    fields = s[s.rindex(')') + 2:].split()
    # fields[0] is state (field 3); ppid 4; utime 14 .. cstime 17
    return int(fields[1]), sum(int(x) for x in fields[11:15])


def tree_cpu(root):
    """CPU seconds used so far by root and its descendants (exited children
    included through cutime/cstime)."""
    if not root:
        return 0.0
    kids, ticks = {}, {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            ppid, t = _stat(int(d))
        except (OSError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
        ticks[int(d)] = t
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        total += ticks.get(p, 0)
        todo.extend(kids.get(p, []))
    return total / HZ


class Meter:
    def __init__(self, a):
        self.pids = {'httpd': a.httpd_pid, 'db': a.db_pid}
        self.t0 = {k: tree_cpu(p) for k, p in self.pids.items()}
        self.self0 = os.times()

    def per_op_ms(self, ops):
        out = {}
        for k, p in self.pids.items():
            if p:
                out['%s_cpu_ms_per_op' % k] = round(
                    (tree_cpu(p) - self.t0[k]) * 1000.0 / max(ops, 1), 3)
        t = os.times()
        client = (t.user - self.self0.user + t.system - self.self0.system +
                  t.children_user - self.self0.children_user +
                  t.children_system - self.self0.children_system)
        out['client_cpu_ms_per_op'] = round(client * 1000.0 / max(ops, 1), 3)
        return out


# --- HTTP --------------------------------------------------------------------

class Client:
    def __init__(self, url, timeout=120):
        assert url.startswith('http://')
        host, _, port = url[7:].rstrip('/').partition(':')
        self.host, self.port, self.timeout = host, int(port or 80), timeout
        self.conn = None

    def call(self, method, path, body=None, mv='1.36'):
        hdr = {'x-auth-token': 'admin', 'openstack-api-version': 'placement ' + mv,
               'accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body)
            hdr['content-type'] = 'application/json'
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port,
                                                       timeout=self.timeout)
            try:
                self.conn.request(method, path, body=data, headers=hdr)
                r = self.conn.getresponse()
                raw = r.read()
                if r.getheader('connection', '').lower() == 'close':
                    self.conn.close()
                    self.conn = None
                return r.status, raw
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        raise AssertionError('unreachable')


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(len(xs) * p))] * 1000.0, 2)


def summary(lat):
    return {'n': len(lat), 'p50_ms': pct(lat, 0.5), 'p99_ms': pct(lat, 0.99)}


# --- the scheduler's loop ------------------------------------------------------

class Retry(Exception):
    pass


def claim_once(c, inst, alloc_req, proj, user, ctype):
    """nova's claim_resources body: the consumer read, then the PUT."""
    st, _ = c.call('GET', '/allocations/%s' % inst, mv='1.28')
    if st != 200:
        raise RuntimeError('GET /allocations/%s: %d' % (inst, st))
    body = dict(alloc_req, project_id=proj, user_id=user, consumer_generation=None)
    mv = '1.36'
    if ctype:
        body['consumer_type'] = 'INSTANCE'
        mv = '1.38'
    st, raw = c.call('PUT', '/allocations/%s' % inst, body, mv=mv)
    if st == 204:
        return True
    if st != 409:
        raise RuntimeError('PUT /allocations: %d %s' % (st, raw[:300]))
    err = json.loads(raw)['errors'][0]
    if err.get('code') == 'placement.concurrent_update':
        if 'consumer generation conflict' in err.get('detail', ''):
            raise RuntimeError('consumer generation conflict on a new consumer')
        raise Retry()
    return False   # capacity: the next host


_DECODER = json.JSONDecoder()


def allocation_requests(raw):
    """The answer's allocation_requests alone: the client shares the two
    cores with the servers, and provider_summaries, the larger half of a
    1,000-candidate answer, is not needed to pick a host here."""
    text = raw.decode()
    at = text.find('"allocation_requests"')
    if at < 0:
        raise RuntimeError('no allocation_requests in the answer')
    reqs, _ = _DECODER.raw_decode(text, text.index('[', at))
    return reqs


def loop_worker(args):
    a, seed, deadline = args
    rng = random.Random(seed)
    c = Client(a.url)
    proj, user = 'bench-loop-project-%d' % (seed % 4), 'bench-loop-user-%d' % seed
    lat, placed, conflicts, retries, no_host, errors = [], 0, 0, 0, 0, []
    while time.time() < deadline:
        inst = str(uuid.uuid4())
        t0 = time.perf_counter()
        st, raw = c.call('GET', NOVA_QUERY, mv='1.36')
        if st != 200:
            errors.append('GET candidates %d' % st)
            break
        reqs = allocation_requests(raw)
        if not reqs:
            no_host += 1
            break    # the cloud is full
        # host_subset_size: one of the first --pick at random, then the rest
        first = rng.randrange(min(a.pick, len(reqs)))
        order = [reqs[first]] + reqs[:first] + reqs[first + 1:]
        done = False
        for alloc_req in order[:a.alternates + 1]:
            ok = False
            for attempt in range(4):          # nova's @retries
                if attempt:
                    retries += 1
                    time.sleep(rng.uniform(0, attempt * 2) * a.retry_sleep_scale)
                try:
                    ok = claim_once(c, inst, alloc_req, proj, user, a.consumer_type)
                    break
                except Retry:
                    continue
                except RuntimeError as e:
                    errors.append(str(e))
                    break
            if ok:
                done = True
                break
            conflicts += 1
        if done:
            placed += 1
            lat.append(time.perf_counter() - t0)
        if len(errors) > 5:
            break
    return lat, placed, conflicts, retries, no_host, errors[:5]


def do_loop(a):
    meter = Meter(a)
    t0 = time.time()
    deadline = t0 + a.seconds
    with multiprocessing.Pool(a.workers) as pool:
        res = pool.map(loop_worker, [(a, i, deadline) for i in range(a.workers)])
    wall = time.time() - t0
    lat = [x for r in res for x in r[0]]
    placed = sum(r[1] for r in res)
    out = {'mode': 'loop', 'workers': a.workers, 'seconds': round(wall, 2),
           'placed': placed, 'placed_per_s': round(placed / wall, 2),
           'conflicts': sum(r[2] for r in res), 'retries': sum(r[3] for r in res),
           'no_host': sum(r[4] for r in res),
           'errors': [e for r in res for e in r[5]][:5]}
    out['conflicts_per_placement'] = round(out['conflicts'] / max(placed, 1), 4)
    out['retries_per_placement'] = round(out['retries'] / max(placed, 1), 4)
    out.update({'loop_' + k: v for k, v in summary(lat).items()})
    out.update(meter.per_op_ms(placed))
    return out


# --- single operations -----------------------------------------------------------

def candidates(c, n=50):
    st, raw = c.call('GET', NOVA_QUERY.replace('limit=1000', 'limit=%d' % n))
    assert st == 200, st
    return json.loads(raw)['allocation_requests']


def do_claim(a):
    """c=1 claims of new consumers (PUT only is timed) on providers taken
    from one candidates answer, round-robin."""
    c = Client(a.url)
    reqs = candidates(c, 50)
    assert reqs, 'no candidates'
    lat = []
    meter = None
    for i in range(a.count + a.warmup):
        if i == a.warmup:
            meter = Meter(a)
        body = dict(reqs[i % len(reqs)], project_id='bench-claim-project',
                    user_id='bench-claim-user', consumer_generation=None,
                    consumer_type='INSTANCE')
        t0 = time.perf_counter()
        st, raw = c.call('PUT', '/allocations/%s' % uuid.uuid4(), body, mv='1.38')
        took = time.perf_counter() - t0
        if st != 204:
            raise SystemExit('PUT /allocations: %d %s' % (st, raw[:300]))
        if i >= a.warmup:
            lat.append(took)
    out = {'mode': 'claim', 'put': summary(lat)}
    out.update(meter.per_op_ms(len(lat)))
    return out


def do_move(a):
    """nova's move_allocations, back and forth: GET both consumers at 1.28,
    POST /allocations moving everything to the other; POST timed alone and
    with its two GETs."""
    c = Client(a.url)
    reqs = candidates(c, 20)
    inst, mig = str(uuid.uuid4()), str(uuid.uuid4())
    body = dict(reqs[0], project_id='bench-move-project', user_id='bench-move-user',
                consumer_generation=None)
    st, raw = c.call('PUT', '/allocations/%s' % inst, body)
    assert st == 204, (st, raw)
    post, whole = [], []
    meter = None
    src, dst = inst, mig
    for i in range(a.count + a.warmup):
        if i == a.warmup:
            meter = Meter(a)
        t0 = time.perf_counter()
        st, raw = c.call('GET', '/allocations/%s' % src, mv='1.28')
        s = json.loads(raw)
        st, raw = c.call('GET', '/allocations/%s' % dst, mv='1.28')
        d = json.loads(raw)
        allocs = {rp: {'resources': v['resources']} for rp, v in s['allocations'].items()}
        payload = {
            src: {'allocations': {}, 'project_id': s['project_id'],
                  'user_id': s['user_id'], 'consumer_generation': s['consumer_generation']},
            dst: {'allocations': allocs, 'project_id': s['project_id'],
                  'user_id': s['user_id'],
                  'consumer_generation': d.get('consumer_generation')}}
        t1 = time.perf_counter()
        st, raw = c.call('POST', '/allocations', payload, mv='1.28')
        t2 = time.perf_counter()
        if st != 204:
            raise SystemExit('POST /allocations: %d %s' % (st, raw[:300]))
        if i >= a.warmup:
            post.append(t2 - t1)
            whole.append(t2 - t0)
        src, dst = dst, src
    out = {'mode': 'move', 'post': summary(post), 'with_gets': summary(whole)}
    out.update(meter.per_op_ms(len(post)))
    return out


class Failed(Exception):
    pass


def timed_gets(c, path, mv, count, warmup):
    lat = []
    for i in range(count + warmup):
        t0 = time.perf_counter()
        st, raw = c.call('GET', path, mv=mv)
        took = time.perf_counter() - t0
        if st != 200:
            raise Failed('GET %s at %s: %d %s' % (path, mv, st, raw[:400]))
        if i >= warmup:
            lat.append(took)
    return lat, json.loads(raw)


def do_usages(a):
    c = Client(a.url)
    out = {'mode': 'usages'}
    cases = [('project_user', '/usages?project_id=%s&user_id=%s' % (a.project, a.user), '1.9'),
             ('project', '/usages?project_id=%s' % a.project, '1.9'),
             ('project_user_1.38', '/usages?project_id=%s&user_id=%s' % (a.project, a.user), '1.38'),
             ('project_1.38', '/usages?project_id=%s' % a.project, '1.38'),
             ('project_type_1.38', '/usages?project_id=%s&consumer_type=INSTANCE' % a.project,
              '1.38')]
    for name, path, mv in cases:
        meter = Meter(a)
        try:
            lat, body = timed_gets(c, path, mv, a.count, a.warmup)
        except Failed as e:   # a server's error is a result too
            out[name] = {'failed': str(e)}
            continue
        out[name] = summary(lat)
        out[name].update(meter.per_op_ms(len(lat) + a.warmup))
        out[name]['answer'] = body['usages']
    return out


def do_get(a):
    c = Client(a.url)
    meter = Meter(a)
    try:
        lat, body = timed_gets(c, a.path, a.mv, a.count, a.warmup)
    except Failed as e:
        raise SystemExit(str(e))
    out = {'mode': 'get', 'path': a.path, 'get': summary(lat),
           'allocation_requests': len(body.get('allocation_requests', []))}
    out.update(meter.per_op_ms(len(lat) + a.warmup))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('mode', choices=('loop', 'move', 'usages', 'claim', 'get'))
    p.add_argument('--url', required=True)
    p.add_argument('--label', default='')
    p.add_argument('--workers', type=int, default=1)
    p.add_argument('--seconds', type=float, default=20.0)
    p.add_argument('--pick', type=int, default=10,
                   help='host_subset_size: pick at random among the first N')
    p.add_argument('--alternates', type=int, default=1000,
                   help='hosts tried after the chosen one on a capacity 409')
    p.add_argument('--retry-sleep-scale', type=float, default=1.0,
                   help="scale of nova's uniform(0, 2*attempt) s retry sleep")
    p.add_argument('--consumer-type', action='store_true',
                   help='claim at 1.38 with consumer_type INSTANCE')
    p.add_argument('--count', type=int, default=200)
    p.add_argument('--warmup', type=int, default=10)
    p.add_argument('--project', default='bench-project-0')
    p.add_argument('--user', default='bench-user-0-0')
    p.add_argument('--path', default=NOVA_QUERY)
    p.add_argument('--mv', default='1.36')
    p.add_argument('--httpd-pid', type=int, default=0)
    p.add_argument('--db-pid', type=int, default=0)
    a = p.parse_args()
    if a.workers < 1 or a.count < 1 or a.seconds <= 0:
        p.error('--workers, --count and --seconds must be positive')
    with open('/proc/loadavg') as f:
        load0 = f.read().split()[:3]
    out = {'loop': do_loop, 'move': do_move, 'usages': do_usages,
           'claim': do_claim, 'get': do_get}[a.mode](a)
    with open('/proc/loadavg') as f:
        out['loadavg_before_after'] = [' '.join(load0), ' '.join(f.read().split()[:3])]
    out['label'] = a.label
    print('RESULT ' + json.dumps(out, sort_keys=True))
    sys.stdout.flush()


if __name__ == '__main__':
    main()
