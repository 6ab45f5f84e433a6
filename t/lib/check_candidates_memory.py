#!/usr/bin/python3
"""What a child keeps of allocation candidates requests for the next one
is bounded (PlacementCandidatesMemory, issue 37), reused rather than
added to, and never changes an answer.

usage: check_candidates_memory.py API_URL KEEP_MB THREADS

KEEP_MB is the server's PlacementCandidatesMemory, THREADS its
ThreadsPerChild. The layout is check_candidate_bound.py's (a root with
one-unit children, asked for 4 isolated groups of 1 unit), here with 16
children and limit=30000: a 15 MB answer from 17 providers. The answer is
streamed as it is built, so such a request left a child 11-13 MB larger
with PlacementCandidatesMemory at 8 as at 1024: the checks hold the
children to the stated bound and to keeping no more round after round,
not to the directive's own figure. The children's resident memory is
read as t/lib/check_body_limits.py reads it (the pid file t/run-api
leaves in PL_TEST_DIR), settled after each round. Prints "ok ..." / "not ok ..."
lines.
"""

import hashlib
import sys
import threading

import check_candidate_bound
from check_body_limits import MB, Children
from placement_client import Api, check

CHILDREN, LIMIT = 16, 30000
QUERY = check_candidate_bound.QUERY + '&limit=%d' % LIMIT
# an ordinary spare allocator keeps up to this (httpd/pl_memory.c)
SPARE_KEEP = 4 * MB
# what else a child's resident memory may move by between two settled
# reads: malloc's arenas, the database driver's buffers, the kernel's
# accounting of shared pages
SLACK = 16 * MB
# ...and after more rounds of four at once, which may meet other threads'
# malloc arenas: 8 more requests of a 15 MB answer that each left a
# quarter of it behind would grow a child by 30 MB
ROUNDS_SLACK = 24 * MB


def ask(api, answers, lock):
    resp = api.send('GET', '/allocation_candidates?' + QUERY, None)
    body = resp.read()
    with lock:
        answers.append((resp.status, hashlib.md5(body).hexdigest(),
                        len(body)))


def round_of(api_url, answers, sequential, together):
    """sequential requests one after the other (each child's roomy
    allocator free for each), then `together` at once (some served by
    ordinary spares while the roomy one is lent)"""
    lock = threading.Lock()
    api = Api(api_url)
    for _ in range(sequential):
        ask(api, answers, lock)
    threads = [threading.Thread(target=ask,
                                args=(Api(api_url), answers, lock))
               for _ in range(together)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def grown(children, before):
    """the most a child's settled resident memory grew over `before`"""
    children.settle()
    now = children.status('VmRSS')
    return now, max([now[c] - before[c] for c in now if c in before] or [0])


def main():
    api_url, keep_mb, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    keep = keep_mb * MB
    api = Api(api_url)
    check('candidates memory: a root and %d children of one unit' % CHILDREN,
          check_candidate_bound.build(api_url, CHILDREN))
    children = Children()
    check('candidates memory: the httpd children are found (PL_TEST_DIR)',
          children.pid is not None and len(children.list()) > 0,
          children.pid)
    children.settle()
    start = children.status('VmRSS')

    # one at a time: each child serves them from its roomy allocator
    answers = []
    round_of(api_url, answers, 4, 0)
    after_one, grew = grown(children, start)
    bound = keep + keep // 4 + SPARE_KEEP + SLACK
    check('candidates memory: 4 requests one after the other: a child '
          'kept %.0f MB, within %d MB (PlacementCandidatesMemory %d, a '
          'quarter of it in malloc, a spare, 16 MB)'
          % (grew / MB, bound // MB, keep_mb), grew <= bound, grew)

    # four at once: the others take ordinary spares, which keep 4 MB each
    round_of(api_url, answers, 0, 4)
    after_two, grew = grown(children, start)
    bound = keep + keep // 4 + threads * SPARE_KEEP + SLACK
    check('candidates memory: 4 at once: a child kept %.0f MB, within %d MB '
          '(PlacementCandidatesMemory, a quarter, %d spares of 4 MB, 16 MB)'
          % (grew / MB, bound // MB, threads), grew <= bound, grew)

    # the same again, three times: what was kept is used again
    for _ in range(2):
        round_of(api_url, answers, 2, 4)
    _, grew = grown(children, after_two)
    check('candidates memory: 2 more rounds kept no more: a child grew '
          '%.0f MB, within 24 MB' % (grew / MB), grew <= ROUNDS_SLACK, grew)

    statuses = sorted(set(st for st, _, _ in answers))
    sums = set(md5 for _, md5, _ in answers)
    size = max(n for _, _, n in answers)
    check('candidates memory: %d answers, all 200, all the same (%.1f MB)'
          % (len(answers), size / MB),
          statuses == [200] and len(sums) == 1 and len(answers) == 20,
          (statuses, len(sums), len(answers)))
    st, doc = api.call('GET', '/allocation_candidates?' + QUERY)
    check('candidates memory: the answer holds %d candidates' % LIMIT,
          st == 200 and len(doc.get('allocation_requests', [])) == LIMIT,
          (st, len(doc.get('allocation_requests', [])) if st == 200 else doc))


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # a failed step is a failed test, not silence
        check('candidates memory: the checks ran to the end', False, repr(e))
        raise
