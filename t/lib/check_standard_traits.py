#!/usr/bin/python3
"""Issue 34: a database gets the standard traits it lacks, from every
server that starts on it, and an operator adds names without a rebuild.

usage: check_standard_traits.py API_URL TEST_DIR DB_URL

API_URL is t/run-api's server (its PlacementStandardTraitsFile is
t/api/data/standard-traits-next.txt), TEST_DIR its scratch directory
(httpd.conf), DB_URL its database. The steps, as operators meet them:
 1. the first server lists exactly sql/traits.txt and the file's names;
 2. the names os-traits 2.9.0 lacks are taken out of the database (those
    no provider uses), as in a database placement 8.0.0 last synced;
 3. two more servers (two children each) start at once on it and are
    asked at once: every answer is complete, none fails;
 4. one of them restarts gracefully with a changed file: the new name is
    served, the name taken out of the file stays (nothing is deleted);
 5. a server with a bad file does not start, naming the file and line.
Prints "ok ..." / "not ok ..." lines (t/run-api counts them).
"""

import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time

from db_connect import connect_any
from placement_client import Api, check

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
APACHE2 = os.environ.get('APACHE2', '/usr/sbin/apache2')


def names(path):
    with open(path) as f:
        return {line.strip() for line in f
                if line.strip() and not line.lstrip().startswith('#')}


def listed(api):
    status, body = api.call('GET', '/traits')
    return status, set(body['traits']) if status == 200 else set()


def free_port():
    out = subprocess.run(['bash', '-c', '. scripts/lib-db.sh; pl_free_port'],
                         cwd=REPO, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


class Server:
    """Another httpd on the same database: the test's configuration with
    its own port, files and PlacementStandardTraitsFile."""

    def __init__(self, test_dir, traits_file):
        self.dir = tempfile.mkdtemp(prefix='std-traits.', dir=test_dir)
        os.chmod(self.dir, 0o755)
        self.port = free_port()
        with open(os.path.join(test_dir, 'httpd.conf')) as f:
            conf = f.read()
        for directive, value in (
                ('Listen', '127.0.0.1:%d' % self.port),
                ('PidFile', '"%s/httpd.pid"' % self.dir),
                ('ErrorLog', '"%s/error.log"' % self.dir),
                ('DefaultRuntimeDir', '"%s"' % self.dir),
                ('CustomLog', '"%s/access.log" pl' % self.dir),
                ('PlacementStandardTraitsFile', traits_file)):
            conf, n = re.subn(r'(?m)^(\s*)%s .*$' % directive,
                              lambda m: '%s%s %s' % (m.group(1), directive,
                                                     value), conf)
            assert n == 1, directive
        self.conf = os.path.join(self.dir, 'httpd.conf')
        with open(self.conf, 'w') as f:
            f.write(conf)
        self.proc = None
        self.api_url = 'http://127.0.0.1:%d/placement' % self.port

    def start(self):
        self.proc = subprocess.Popen([APACHE2, '-f', self.conf,
                                      '-DFOREGROUND'],
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT)

    def configtest(self):
        """(exit status, output) of `apache2 -t` on this configuration"""
        out = subprocess.run([APACHE2, '-t', '-f', self.conf],
                             capture_output=True, text=True, timeout=60)
        return out.returncode, out.stdout + out.stderr

    def wait_up(self):
        import socket
        for _ in range(150):
            try:
                socket.create_connection(('127.0.0.1', self.port), 1).close()
                return True
            except OSError:
                if self.proc.poll() is not None:
                    return False
                time.sleep(0.2)
        return False

    def graceful(self):
        subprocess.run([APACHE2, '-f', self.conf, '-k', 'graceful'],
                       check=True, timeout=60)
        self.restarted_at = time.time()

    def stop(self):
        # httpd's mpm_event child that is told to stop while it is still
        # starting can die of SIGSEGV in its own main thread (in
        # apr_os_sock_get, no module on the stack: a core of 2026-11-27):
        # the children a graceful restart makes get two seconds to start
        since = time.time() - getattr(self, 'restarted_at', 0)
        if since < 2:
            time.sleep(2 - since)
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def bad_log_lines(self):
        with open(os.path.join(self.dir, 'error.log')) as f:
            return [line for line in f
                    if re.search(r':(error|crit|alert|emerg)\]|exit signal',
                                 line)]


def take_out_newer_names(db_url, keep):
    """Delete the standard traits not in keep that no provider uses, as
    a database an older placement filled; returns how many went."""
    conn, mark = connect_any(db_url)
    cur = conn.cursor()
    cur.execute('SELECT name FROM traits WHERE id NOT IN '
                '(SELECT trait_id FROM resource_provider_traits)')
    gone = [row[0] for row in cur.fetchall()
            if not row[0].startswith('CUSTOM_') and row[0] not in keep]
    for name in gone:
        cur.execute('DELETE FROM traits WHERE name = %s' % mark, (name,))
    conn.commit()
    conn.close()
    return len(gone)


def ask_at_once(urls, per_server):
    """GET /traits per_server times at once on each server, each on its
    own connection: [(status, set of names)]"""
    jobs = [url for url in urls for _ in range(per_server)]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(lambda url: listed(Api(url)), jobs))


def main():
    api_url, test_dir, db_url = sys.argv[1:4]
    shipped = names(os.path.join(REPO, 'sql', 'traits.txt'))
    old = names(os.path.join(REPO, 't', 'api', 'data',
                             'os-traits-2.9.0.txt'))
    first_file = names(os.path.join(REPO, 't', 'api', 'data',
                                    'standard-traits-next.txt'))
    api = Api(api_url)
    everything = shipped | first_file

    # 1. a fresh database
    status, have = listed(api)
    check('a fresh database serves every name of sql/traits.txt and of '
          'the file', status == 200 and have == everything,
          'missing %s, more %s' % (sorted(everything - have)[:5],
                                   sorted(have - everything)[:5]))
    check('the shipped list holds every name of os-traits 2.9.0',
          old <= shipped, sorted(old - shipped)[:5])

    # 2. as a database placement 8.0.0 last synced
    gone = take_out_newer_names(db_url, old)
    status, have = listed(api)
    check('the database lacks the %d newer names no provider uses' % gone,
          gone >= 30 and status == 200 and len(have) == len(everything) - gone,
          '%d taken out, %d listed' % (gone, len(have)))

    # 3. two servers start at once on it
    work = tempfile.mkdtemp(prefix='std-traits-files.', dir=test_dir)
    os.chmod(work, 0o755)
    next_file = os.path.join(work, 'next.txt')
    with open(next_file, 'w') as f:
        f.write('# the next release\nHW_NEXT_RELEASE_FEATURE\n')
    servers = [Server(test_dir, next_file) for _ in range(2)]
    try:
        for s in servers:
            s.start()
        up = all(s.wait_up() for s in servers)
        check('two more servers start on the database', up)
        if up:
            answers = ask_at_once([s.api_url for s in servers], 8)
            complete = [a for a in answers
                        if a[0] == 200 and a[1] == everything]
            check('16 first requests at once to both: every answer 200 and '
                  'complete', len(complete) == len(answers),
                  [(a[0], len(a[1])) for a in answers])

            # 4. a name added, a name taken out of the file, a restart
            with open(next_file, 'w') as f:
                f.write('HW_ADDED_AT_RUNTIME\n')
            servers[0].graceful()
            second = Api(servers[0].api_url)
            status = None
            for _ in range(100):
                status, _ = second.call('GET', '/traits/HW_ADDED_AT_RUNTIME')
                if status == 204:
                    break
                time.sleep(0.2)
            check('a name added to the file is served after a graceful '
                  'restart', status == 204, status)
            status, _ = second.call('GET', '/traits/HW_NEXT_RELEASE_FEATURE')
            check('a name taken out of the file stays in the database',
                  status == 204, status)
            status, body = second.call('PUT', '/traits/HW_ADDED_AT_RUNTIME')
            check('the added name is standard: PUT answers 400',
                  status == 400, status)
    finally:
        for s in servers:
            s.stop()
    for i, s in enumerate(servers):
        bad = s.bad_log_lines()
        check('no error and no crash in the log of more server %d' % (i + 1),
              not bad, bad[:3])

    # 5. a bad file stops startup with its file and line
    bad_file = os.path.join(work, 'bad.txt')
    with open(bad_file, 'w') as f:
        f.write('HW_FINE\n\n# a comment\nhw_lower_case\n')
    rc, out = Server(test_dir, bad_file).configtest()
    check('a bad file refuses the configuration', rc != 0, rc)
    check('the refusal names the file and the line',
          '%s:4:' % bad_file in out and 'hw_lower_case' in out, out[-300:])


if __name__ == '__main__':
    main()
