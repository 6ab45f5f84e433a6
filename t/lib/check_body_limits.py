#!/usr/bin/python3
"""A request body costs bounded memory (issue 23: 3 million "{}" in a
list, 9 MB, grew a child to 3 GB and answered 39 MB of error; a 63 MB
string 1.9 GB and a 132 MB answer). Each route takes a body up to its own
size (64 KB, 1 MB or 8 MB; PlacementMaxBodySize replaces them), a body
whose JSON would cost more than 48 times its size to parse is refused, and
error texts show long values cut. A body of each JSON shape near 8 MB
grows a child by at most 48 times its size and 32 MB (issue 35: the
httpd children's peak RSS, read as t/stress/stress.py reads it, from the
pid file t/run-api leaves in PL_TEST_DIR).

usage: check_body_limits.py API_URL [MAX]
       check_body_limits.py API_URL --at-once BUDGETxCOUNT [--timeout-short]
MAX: the PlacementMaxBodySize the server runs with (bytes), if any.
--at-once: COUNT large bodies sent together to a server whose
PlacementMaxBodyMemory is BUDGET (MB); --timeout-short: its Timeout is
too short for them all to wait their turn (some must be 503s).
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import os
import sys
import threading
import time
import urllib.parse
import uuid

from placement_client import Api, check

KB = 1024
MB = 1024 * 1024
SMALL, MEDIUM, LARGE = 64 * KB, 1 * MB, 8 * MB
# an error answer to a body of any size stays under this
ERROR_MAX = 4 * KB
# what json-c may build of a body, at most, in times its size
# (httpd/pl_req_body.c's JSON_COST_FACTOR), and what the request may
# cost a child besides (the body read, a schema, a handler)
PARSE_FACTOR = 48
REQUEST_MORE = 32 * MB


class Raw:
    """One request of raw bytes on a connection of its own (a 413 closes
    it): (status, answer bytes, seconds)."""

    def __init__(self, url):
        self.url = urllib.parse.urlsplit(url)

    def send(self, method, path, body, chunked=False, headers_out=None):
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port,
                                          timeout=30)
        headers = {'x-auth-token': 'admin', 'accept': 'application/json',
                   'openstack-api-version': 'placement 1.39',
                   'content-type': 'application/json'}
        t0 = time.time()
        try:
            if chunked:
                pieces = (body[i:i + 65536]
                          for i in range(0, len(body), 65536))
                conn.request(method, self.url.path.rstrip('/') + path,
                             body=pieces, headers=headers,
                             encode_chunked=True)
            else:
                conn.request(method, self.url.path.rstrip('/') + path,
                             body=body, headers=headers)
        except OSError:
            pass  # the server may answer and close before all is sent
        try:
            resp = conn.getresponse()
            raw = resp.read()
            if headers_out is not None:
                headers_out.update(resp.getheaders())
            return resp.status, raw, time.time() - t0
        except (OSError, http.client.HTTPException) as e:
            return None, repr(e).encode(), time.time() - t0
        finally:
            conn.close()


def detail_of(raw):
    try:
        return json.loads(raw.decode('utf-8'))['errors'][0]['detail']
    except (ValueError, KeyError, IndexError, TypeError):
        return raw[:300]


def padded(doc, size):
    """doc as JSON, blanks added after it up to exactly size bytes"""
    text = json.dumps(doc).encode()
    assert len(text) <= size, (len(text), size)
    return text + b' ' * (size - len(text))


def check_refused(raw, name, method, path, body, want, chunked=False):
    st, answer, secs = raw.send(method, path, body, chunked)
    check('%s: %d, error answer under %d bytes, under 10 s' %
          (name, want, ERROR_MAX),
          st == want and len(answer) < ERROR_MAX and secs < 10,
          (st, len(answer), round(secs, 2), detail_of(answer)))
    return detail_of(answer)


def route_caps(raw, api, rp, gen):
    """A body of the route's cap is taken, one byte more is refused."""
    traits = {'resource_provider_generation': gen,
              'traits': ['HW_CPU_X86_AVX']}
    st, answer, _ = raw.send('PUT', '/resource_providers/%s/traits' % rp,
                             padded(traits, LARGE - 1))
    check('cap: PUT traits of 8 MB - 1 byte is taken', st == 200,
          (st, detail_of(answer)))
    traits['resource_provider_generation'] = gen + 1
    detail = check_refused(raw, 'cap: PUT traits of 8 MB + 1 byte', 'PUT',
                           '/resource_providers/%s/traits' % rp,
                           padded(traits, LARGE + 1), 413)
    check('cap: ... says the sizes', 'Request body too large: 8388609 '
          'bytes, more than the 8388608 accepted here' in str(detail),
          detail)
    check_refused(raw, 'cap: PUT traits of 8 MB + 1 chunked', 'PUT',
                  '/resource_providers/%s/traits' % rp,
                  padded(traits, LARGE + 1), 413, chunked=True)
    st, answer, _ = raw.send('PUT', '/resource_providers/%s/traits' % rp,
                             padded(traits, LARGE), chunked=True)
    check('cap: PUT traits of 8 MB chunked is taken', st == 200,
          (st, detail_of(answer)))

    # a fresh client: the kept-alive one may have idled out meanwhile
    st, body = Api(api.url).call('GET', '/resource_providers/%s' % rp)
    aggs = {'resource_provider_generation': body['generation'],
            'aggregates': [str(uuid.uuid4()) for _ in range(1000)]}
    st, answer, _ = raw.send('PUT', '/resource_providers/%s/aggregates' % rp,
                             padded(aggs, LARGE - 1))
    check('cap: PUT aggregates in 8 MB - 1 byte is taken',
          st == 200, (st, detail_of(answer)))

    st, answer, _ = raw.send('POST', '/resource_classes',
                             padded({'name': 'CUSTOM_CAP'}, SMALL - 1))
    check('cap: POST a class in 64 KB - 1 byte is taken', st == 201,
          (st, detail_of(answer)))
    check_refused(raw, 'cap: POST a class in 64 KB + 1 byte', 'POST',
                  '/resource_classes',
                  padded({'name': 'CUSTOM_CAP2'}, SMALL + 1), 413)
    st, answer, _ = raw.send('PUT', '/allocations/%s' % uuid.uuid4(),
                             padded({'allocations': {}, 'project_id': 'p',
                                     'user_id': 'u',
                                     'consumer_generation': None,
                                     'consumer_type': 'INSTANCE'},
                                    MEDIUM + 1))
    check('cap: PUT an allocation in 1 MB + 1 byte is a 413', st == 413,
          (st, detail_of(answer)))
    st, answer, _ = raw.send('PUT', '/allocations/%s' % uuid.uuid4(),
                             padded({'allocations': {}, 'project_id': 'p',
                                     'user_id': 'u',
                                     'consumer_generation': None,
                                     'consumer_type': 'INSTANCE'},
                                    MEDIUM - 1))
    check('cap: PUT an allocation in 1 MB - 1 byte is taken', st == 204,
          (st, detail_of(answer)))


def directive_caps(raw, rp, gen, most):
    """PlacementMaxBodySize replaces every route's own size."""
    traits = {'resource_provider_generation': gen,
              'traits': ['HW_CPU_X86_AVX']}
    st, answer, _ = raw.send('PUT', '/resource_providers/%s/traits' % rp,
                             padded(traits, most))
    check('directive: PUT traits of PlacementMaxBodySize bytes is taken',
          st == 200, (st, detail_of(answer)))
    traits['resource_provider_generation'] = gen + 1
    detail = check_refused(raw, 'directive: PUT traits of one byte more',
                           'PUT', '/resource_providers/%s/traits' % rp,
                           padded(traits, most + 1), 413)
    check('directive: ... says the sizes', 'Request body too large: %d '
          'bytes, more than the %d accepted here' % (most + 1, most)
          in str(detail), detail)


def dense_bodies(raw, api, rp):
    """Bodies that would cost too much to parse are refused before."""
    path = '/resource_providers/%s/traits' % rp
    # 3,000,000 {} (9 MB): over the route's size
    check_refused(raw, 'dense: 3,000,000 {} (9 MB)', 'PUT', path,
                  b'[' + b','.join([b'{}'] * 3000000) + b']', 413)
    # 2,000,000 {} (6 MB): under it, but 1.7 GB of json-c objects
    detail = check_refused(raw, 'dense: 2,000,000 {} (6 MB)', 'PUT', path,
                           b'[' + b','.join([b'{}'] * 2000000) + b']', 413)
    check('dense: ... says what it counted', 'parsing its 2000000 objects, '
          '1 arrays, 0 keys, 0 strings, 0 numbers and 0 true, false or null '
          'would take about' in str(detail), detail)
    check_refused(raw, 'dense: 1,000,000 [] nested two deep (7 MB)', 'PUT',
                  path, b'[' + b','.join([b'[[]]'] * 1000000) + b']', 413)
    # nesting deeper than 64 levels
    st, answer, _ = raw.send('PUT', path, b'[' * 65 + b']' * 65)
    check('dense: 65 nested lists are a 400',
          st == 400 and 'nesting too deep' in str(detail_of(answer)),
          (st, detail_of(answer)))
    st, answer, _ = raw.send('PUT', path, b'[' * 64 + b']' * 64)
    check('dense: 64 nested lists parse (then fail the schema)',
          st == 400 and 'JSON does not validate' in str(detail_of(answer)),
          (st, detail_of(answer)))


def long_values(raw, rp):
    """Error texts show a long value cut, not whole (twice)."""
    path = '/resource_providers/%s/traits' % rp
    body = json.dumps({'resource_provider_generation': 0,
                       'traits': 'x' * (LARGE - 100)}).encode()
    detail = check_refused(raw, 'cut: an 8 MB string where a list belongs',
                           'PUT', path, body, 400)
    check('cut: ... says how long it was',
          "xxx... (cut: a str of %d characters) is not of type 'array'" %
          (LARGE - 100) in str(detail), detail)
    body = json.dumps({'resource_provider_generation': 0,
                       'traits': ['CUSTOM_' + 'Y' * (4 * MB)]}).encode()
    detail = check_refused(raw, 'cut: a 4 MB trait name', 'PUT', path, body,
                           400)
    check('cut: ... is too long, cut', 'YYY... (cut: a str of %d '
          'characters) is too long' % (4 * MB + 7) in str(detail), detail)


class Children:
    """The httpd children of the server t/run-api started (its pid file
    in PL_TEST_DIR): their peak RSS reset before a request and read
    after it, as t/stress/stress.py does (/proc/PID/clear_refs, VmHWM)."""

    def __init__(self):
        self.pid = None
        try:
            with open(os.path.join(os.environ['PL_TEST_DIR'],
                                   'httpd.pid')) as f:
                self.pid = int(f.read())
        except (KeyError, OSError, ValueError):
            pass

    def list(self):
        try:
            with open('/proc/%d/task/%d/children' % (self.pid, self.pid)) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            return []

    def status(self, field):
        """{child: the field of /proc/PID/status, in bytes}"""
        out = {}
        for c in self.list():
            try:
                with open('/proc/%d/status' % c) as f:
                    for line in f:
                        if line.startswith(field + ':'):
                            out[c] = int(line.split()[1]) * 1024
            except OSError:
                pass
        return out

    def settle(self):
        """Wait (5 s at most) until no child's RSS has changed for half a
        second: a request's memory goes back to the system after its
        answer was sent, once json-c's objects are freed and its pool
        destroyed (httpd/pl_memory.c)"""
        last, same = self.status('VmRSS'), 0
        for _ in range(50):
            time.sleep(0.1)
            now = self.status('VmRSS')
            same = same + 1 if now == last else 0
            if same == 5:
                return
            last = now

    def grown(self, fn):
        """fn() run; the most a child's RSS grew over what it held
        before (glibc may keep what an earlier request freed)"""
        self.settle()
        for c in self.list():
            try:
                with open('/proc/%d/clear_refs' % c, 'w') as f:
                    f.write('5')
            except OSError:
                pass
        before = self.status('VmRSS')
        result = fn()
        after = self.status('VmHWM')
        return result, max([after[c] - before.get(c, 0) for c in after] or
                           [0])


def near_limit(elem, size=LARGE - KB, head=b'[', tail=b']'):
    """head, elem repeated with commas, tail: at most size bytes"""
    n = (size - len(head) - len(tail) + 1) // (len(elem) + 1)
    return head + b','.join([elem] * n) + tail


def near_limit_keys(value, size=LARGE - KB):
    """an object of distinct short keys, each with value"""
    members, total, i = [], 2, 0
    while True:
        m = b'"%x":%s' % (i, value)
        if total + len(m) + 1 > size:
            return b'{' + b','.join(members) + b'}'
        members.append(m)
        total += len(m) + 1
        i += 1


def near_limit_names(size=LARGE - KB):
    """a provider's trait list of distinct short names, none a trait"""
    head = b'{"resource_provider_generation":0,"traits":['
    names, total, i = [], len(head) + 2, 0
    while True:
        m = b'"%x"' % i
        if total + len(m) + 1 > size:
            return head + b','.join(names) + b']}'
        names.append(m)
        total += len(m) + 1
        i += 1


def shapes(raw, rp):
    """A body of each JSON shape near the 8 MB routes' size (objects,
    arrays, numbers, strings, keys, nesting; to the route that takes it
    furthest) keeps a child within the stated bound: what json-c builds
    is priced per value as json-c 0.16 spends it and refused over 48
    times the body (docs/reliability.md), and what the request does
    besides (the body read, a schema, a handler) stays within 32 MB
    more. The lists nested around a string grew a child 61 times their
    size (509 MB) when brackets and separators alone were priced (45
    times the body: taken)."""
    children = Children()
    if children.pid is None or not children.list():
        check('shapes: the httpd children are found (PL_TEST_DIR)', False,
              os.environ.get('PL_TEST_DIR'))
        return
    traits = '/resource_providers/%s/traits' % rp
    aggregates = '/resource_providers/%s/aggregates' % rp
    twelve = b'{' + b','.join(b'"%c":1' % c for c in b'abcdefghijkl') + b'}'
    cases = [
        ('objects [{},...]', 'PUT', traits, near_limit(b'{}')),
        ('objects of 12 keys', 'POST', '/allocations', near_limit(twelve)),
        ('objects nested 8 around a string', 'POST', '/allocations',
         near_limit(b'{"a":' * 8 + b'"aaaaaaaaaaaa"' + b'}' * 8)),
        ('arrays [[],...]', 'PUT', traits, near_limit(b'[]')),
        ('arrays nested 8 around a string', 'PUT', traits,
         near_limit(b'[' * 8 + b'"aaaaaaaaaaaa"' + b']' * 8)),
        ('numbers [1,...]', 'POST', '/allocations', near_limit(b'1')),
        ('numbers [0.5,...]', 'POST', '/allocations', near_limit(b'0.5')),
        ('true [true,...]', 'POST', '/allocations', near_limit(b'true')),
        ('strings as aggregates ["",...]', 'PUT', aggregates,
         near_limit(b'""', head=b'{"resource_provider_generation":0,'
                    b'"aggregates":[', tail=b']}')),
        ('strings as traits ["a",...]', 'PUT', traits,
         near_limit(b'"a"', head=b'{"resource_provider_generation":0,'
                    b'"traits":[', tail=b']}')),
        ('distinct trait names', 'PUT', traits, near_limit_names()),
        ('keys {"k":1,...}', 'POST', '/allocations', near_limit_keys(b'1')),
        ('keys {"k":"",...}', 'POST', '/allocations', near_limit_keys(b'""')),
    ]
    for name, method, path, body in cases:
        bound = PARSE_FACTOR * len(body) + REQUEST_MORE
        (st, answer, secs), grown = children.grown(
            lambda: raw.send(method, path, body))
        check('shapes: %s (%.1f MB): %s, a child grew %d MB, within %d MB'
              % (name, len(body) / MB, st, grown // MB, bound // MB),
              st in (400, 413) and grown <= bound and
              len(answer) < 16 * MB,
              (st, grown // MB, round(secs, 2), detail_of(answer)))
        if st == 413:
            check('shapes: %s: the 413 says what it counted' % name,
                  ' objects, ' in str(detail_of(answer)) and
                  'true, false or null would take about' in
                  str(detail_of(answer)), detail_of(answer))


def dense_but_real(raw, api, rp):
    """The densest real body (inventories of "total" alone, compact) is
    over the parse floor and still taken."""
    api = Api(api.url)
    names = ['CUSTOM_D%04d' % i for i in range(1500)]
    made = sum(api.call('PUT', '/resource_classes/' + n)[0] in (201, 204)
               for n in names)
    check('real: 1,500 classes made', made == len(names), made)
    st, body = api.call('GET', '/resource_providers/%s' % rp)
    doc = {'resource_provider_generation': body['generation'],
           'inventories': {n: {'total': 1} for n in names}}
    text = json.dumps(doc, separators=(',', ':')).encode()
    st, answer, _ = raw.send('PUT', '/resource_providers/%s/inventories' % rp,
                             text)
    check('real: 1,500 inventories of "total" alone (%d bytes) are taken'
          % len(text), st == 200, (st, detail_of(answer)))


def at_once(raw, budget_mb, count, timeout_short):
    """Large bodies sent at once share their child's budget
    (PlacementMaxBodyMemory): each waits for room, so a child grows by
    at most the budget, the bodies read meanwhile and one request's
    32 MB beyond json-c; a body that waited the server's Timeout
    answers 503 with Retry-After. Before the budget, 32 such bodies at
    once grew a child to 13-16 GB."""
    children = Children()
    if children.pid is None or not children.list():
        check('at once: the httpd children are found (PL_TEST_DIR)', False,
              os.environ.get('PL_TEST_DIR'))
        return
    twelve = b'{' + b','.join(b'"%c":1' % c for c in b'abcdefghijkl') + b'}'
    body = near_limit(twelve)
    answers = []

    def send_all():
        def one():
            headers = {}
            st, answer, _ = raw.send('POST', '/allocations', body,
                                     headers_out=headers)
            answers.append((st, answer, headers))
        threads = [threading.Thread(target=one) for _ in range(count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    _, grown = children.grown(send_all)
    bound = budget_mb * MB + count * len(body) + REQUEST_MORE
    statuses = sorted(st for st, _, _ in answers)
    check('at once: %d bodies of %.1f MB: a child grew %d MB, within %d MB '
          '(budget %d MB, the bodies, 32 MB)'
          % (count, len(body) / MB, grown // MB, bound // MB, budget_mb),
          grown <= bound, grown // MB)
    check('at once: each answer is its own 400 or a busy 503: %s'
          % ' '.join(map(str, statuses)),
          len(answers) == count and set(statuses) <= {400, 503} and
          400 in statuses, [(st, detail_of(a)) for st, a, _ in answers])
    if timeout_short:
        check('at once: with a short Timeout some waited too long (503)',
              503 in statuses, statuses)
    busy = [(answer, headers) for st, answer, headers in answers
            if st == 503]
    check('at once: each 503 says to try again in 5 s (Retry-After)',
          all('try again later' in str(detail_of(answer)) and
              headers.get('Retry-After') == '5' for answer, headers in busy),
          busy[:1])


def main():
    url = sys.argv[1]
    if len(sys.argv) > 3 and sys.argv[2] == '--at-once':
        budget_mb, count = map(int, sys.argv[3].split('x'))
        at_once(Raw(url), budget_mb, count, '--timeout-short' in sys.argv)
        return
    most = int(sys.argv[2]) if len(sys.argv) > 2 else None
    api = Api(url)
    api.url = url
    raw = Raw(url)
    rp = str(uuid.uuid4())
    st, _ = api.call('POST', '/resource_providers',
                     {'name': 'body-limits-' + rp, 'uuid': rp})
    check('body limits: provider created', st == 200, st)
    if most:
        directive_caps(raw, rp, 0, most)
        return
    dense_bodies(raw, api, rp)
    shapes(raw, rp)
    long_values(raw, rp)
    route_caps(raw, api, rp, 0)
    dense_but_real(raw, api, rp)


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # a failed step is a failed test, not silence
        check('body limits: the checks ran to the end', False, repr(e))
        raise
