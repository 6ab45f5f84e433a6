"""Shared pieces of the keystone-mode tests (stdlib only).

- Tap: ok / not ok lines and the counts, one summary line at the end.
- http_request(): one request, never raising for an HTTP status.
- Placement: a private placement server on 127.0.0.1 with a fresh SQLite
  database, either mod_placement (t/conf/httpd.conf.in, the same
  placeholders t/run-api fills) or, with reference=True, upstream placement
  8.0.0 behind keystonemiddleware (t/keystone/reference-placement.sh).
- Keystone control: tokens, revocation, stop/start of the private Keystone
  (scripts/keystone-server.sh, scripts/keystone-tool.py).

Everything reads its coordinates from the environment that t/keystone/run
exports (the private Keystone's env file plus REPO, MOD_PLACEMENT, ...).
"""

import http.client
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import time

PY = '/usr/bin/python3'
REPO = os.environ.get('REPO') or os.path.abspath(
    os.path.join(os.path.dirname(__file__), '..', '..'))
PREFIX = '/placement'
LOG_ERR_WORDS = ('[error]', '[crit]', '[alert]', '[emerg]', 'exit signal')


class Tap:
    """Counts and prints TAP-like lines: ok NAME / not ok NAME: WHY."""

    def __init__(self, label):
        self.label = label
        self.passed = self.failed = 0

    def ok(self, cond, name, why=''):
        if cond:
            self.passed += 1
            print('ok %s: %s' % (self.label, name))
        else:
            self.failed += 1
            print('not ok %s: %s%s' % (self.label, name,
                                       (': ' + why) if why else ''))
        sys.stdout.flush()
        return cond

    def eq(self, got, want, name):
        return self.ok(got == want, name,
                       'expected %r, got %r' % (want, got))

    def note(self, text):
        print('# ' + text)
        sys.stdout.flush()

    def summary(self):
        print('%s: %d passed, %d failed' % (self.label, self.passed,
                                            self.failed))
        return 0 if self.failed == 0 else 1


class Response:
    def __init__(self, status, headers, body, seconds):
        self.status = status
        self.headers = headers      # list of (name, value)
        self.body = body            # bytes
        self.seconds = seconds

    def header(self, name):
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return None

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def __repr__(self):
        return '<%s %s>' % (self.status, self.body[:200])


def http_request(method, url, headers=None, body=None, timeout=30):
    """One request on a fresh connection; status 0 on a connection error
    (the error text is the body)."""
    assert url.startswith('http://')
    hostport, _, path = url[len('http://'):].partition('/')
    host, _, port = hostport.partition(':')
    hdrs = {'Accept': 'application/json'}
    hdrs.update(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) \
            else body
        hdrs.setdefault('Content-Type', 'application/json')
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, '/' + path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        return Response(resp.status, resp.getheaders(), raw,
                        time.monotonic() - t0)
    except (OSError, http.client.HTTPException) as exc:
        return Response(0, [], str(exc).encode(), time.monotonic() - t0)
    finally:
        conn.close()


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def port_open(port):
    try:
        socket.create_connection(('127.0.0.1', port), timeout=1).close()
        return True
    except OSError:
        return False


# ---- the private Keystone ------------------------------------------------

def ks_env_file():
    return os.path.join(os.environ['KS_DIR'], 'env')


def ks_tool(*args):
    out = subprocess.run([PY, os.path.join(REPO, 'scripts',
                                           'keystone-tool.py'),
                          args[0], ks_env_file()] + list(args[1:]),
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def token(user, project=None):
    return ks_tool('token', user, *([project] if project else []))


def revoke(tok):
    ks_tool('revoke', tok)


def ks_server(cmd, extra_env=None):
    env = dict(os.environ)
    env.update(extra_env or {})
    return subprocess.run([os.path.join(REPO, 'scripts',
                                        'keystone-server.sh'),
                           cmd, os.environ['KS_DIR']], env=env,
                          capture_output=True, text=True)


def ks_access_lines(method, path):
    """Lines of Keystone's access log for METHOD PATH, with or without a
    query string (keystonemiddleware validates with GET /v3/auth/tokens,
    mod_placement with GET /v3/auth/tokens?nocatalog)."""
    with open(os.path.join(os.environ['KS_DIR'], 'access.log'),
              encoding='utf-8', errors='replace') as fh:
        return [ln for ln in fh
                if '"%s %s ' % (method, path) in ln
                or '"%s %s?' % (method, path) in ln]


# ---- a private placement server -----------------------------------------

def keystone_directives(cache_time=None, www_uri=True, timeout=5):
    """The <Location> lines of keystone mode with the private Keystone."""
    ks = os.environ['KS_URL']
    lines = [
        'PlacementAuthStrategy keystone',
        'PlacementKeystoneAuthURL %s' % ks,
        'PlacementKeystoneUsername placement',
        'PlacementKeystonePassword %s' % os.environ['KS_PLACEMENT_PASSWORD'],
        'PlacementKeystoneProjectName service',
        'PlacementKeystoneUserDomainName Default',
        'PlacementKeystoneProjectDomainName Default',
        'PlacementKeystoneTimeout %d' % timeout,
    ]
    if www_uri:
        lines.append('PlacementKeystoneWWWAuthenticateURI %s/v3' % ks)
    if cache_time is not None:
        lines.append('PlacementTokenCacheTime %d' % cache_time)
    return lines


class Placement:
    """A placement server in dir on a free port (or port), stopped by
    stop(). mod_placement gets location/server directives; the reference
    gets the equivalent [keystone_authtoken] lines in authtoken_extra."""

    def __init__(self, dir, location=(), server=(), reference=False,
                 authtoken_extra=(), port=None):
        self.dir = dir
        self.location = list(location)
        self.server = list(server)
        self.reference = reference
        self.authtoken_extra = list(authtoken_extra)
        self.port = port or free_port()
        self.proc = None
        self.url = 'http://127.0.0.1:%d%s' % (self.port, PREFIX)

    def start(self):
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o755)
        if self.reference:
            return self._start_reference()
        return self._start_module()

    def _start_reference(self):
        env = dict(os.environ)
        env['REF_AUTHTOKEN_EXTRA'] = '\n'.join(self.authtoken_extra)
        res = subprocess.run([os.path.join(REPO, 't', 'keystone',
                                           'reference-placement.sh'),
                              'start', self.dir, str(self.port)],
                             env=env, capture_output=True, text=True)
        if res.returncode != 0:
            return 'reference did not start: ' + res.stderr[-800:]
        return None

    def _start_module(self):
        mod = os.environ.get('MOD_PLACEMENT',
                             os.path.join(REPO, 'build', 'mod_placement.so'))
        mod = os.path.abspath(mod)
        modules = os.environ.get('PL_MODULES_DIR',
                                 '/usr/lib/apache2/modules')
        dburl = 'sqlite:///%s/placement.sqlite' % self.dir
        dbinit = os.path.join(REPO, 'scripts', 'db-init.sh')
        res = subprocess.run([dbinit, '--recreate', dburl],
                             capture_output=True, text=True)
        if res.returncode != 0:
            return 'db-init failed: ' + res.stderr[-500:]
        dbd = subprocess.run([dbinit, '--dbd', dburl], capture_output=True,
                             text=True, check=True).stdout
        user_group = ''
        if os.getuid() == 0:
            user = os.environ.get('PL_TEST_HTTPD_USER', 'www-data')
            pw = pwd.getpwnam(user)
            user_group = 'User %s\nGroup #%d' % (user, pw.pw_gid)
            for root, dirs, files in os.walk(self.dir):
                for n in [root] + [os.path.join(root, f) for f in files]:
                    os.chown(n, pw.pw_uid, pw.pw_gid)
        with open(os.path.join(REPO, 't', 'conf', 'httpd.conf.in'),
                  encoding='utf-8') as fh:
            conf = fh.read()
        subst = {
            'SERVER_ROOT': self.dir, 'MODULES_DIR': modules, 'MODULE': mod,
            'PORT': str(self.port), 'USER_GROUP': user_group, 'DBD': dbd,
            'PREFIX': PREFIX,
            'LOG_LEVEL': os.environ.get('PL_TEST_LOGLEVEL', 'notice'),
            'LOCATION_EXTRA': '\n'.join(self.location),
            'EXTRA': '\n'.join(self.server),
        }
        # keystone mode keeps validated tokens in an socache (shmcb by
        # default), which the stock template does not load
        if 'PlacementAuthStrategy keystone' in self.location and not any(
                'socache_shmcb_module' in ln for ln in self.server):
            subst['EXTRA'] = ('LoadModule socache_shmcb_module %s/'
                              'mod_socache_shmcb.so\n' % modules
                              + subst['EXTRA'])
        for k, v in subst.items():
            conf = conf.replace('@%s@' % k, v)
        with open(os.path.join(self.dir, 'httpd.conf'), 'w',
                  encoding='utf-8') as fh:
            fh.write(conf)
        open(os.path.join(self.dir, 'error.log'), 'w').close()
        apache2 = os.environ.get('APACHE2') or shutil.which('apache2') \
            or '/usr/sbin/apache2'
        self.out = open(os.path.join(self.dir, 'httpd.out'), 'w')
        self.proc = subprocess.Popen(
            [apache2, '-f', os.path.join(self.dir, 'httpd.conf'),
             '-DFOREGROUND'], stdout=self.out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL)
        for _ in range(150):
            if port_open(self.port):
                return None
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        with open(os.path.join(self.dir, 'httpd.out'), encoding='utf-8',
                  errors='replace') as fh:
            out = fh.read()
        with open(os.path.join(self.dir, 'error.log'), encoding='utf-8',
                  errors='replace') as fh:
            out += fh.read()
        return 'httpd did not start: ' + ' | '.join(
            out.strip().splitlines()[-5:])

    def stop(self):
        if self.reference:
            subprocess.run([os.path.join(REPO, 't', 'keystone',
                                         'reference-placement.sh'),
                            'stop', self.dir], capture_output=True)
            return
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.out.close()

    def bad_log_lines(self, allow=()):
        """[error]/[crit]/... lines and child crashes in the error log."""
        path = os.path.join(self.dir, 'error.log')
        if self.reference or not os.path.exists(path):
            return []
        with open(path, encoding='utf-8', errors='replace') as fh:
            return [ln.rstrip() for ln in fh
                    if any(w in ln for w in LOG_ERR_WORDS)
                    and not any(a in ln for a in allow)]

    def children(self):
        """pids of the httpd children (for the two-children cache test)."""
        if self.proc is None:
            return []
        out = subprocess.run(['ps', '-o', 'pid=', '--ppid',
                              str(self.proc.pid)], capture_output=True,
                             text=True).stdout
        return [int(p) for p in out.split()]

    def req(self, method, path, token=None, headers=None, body=None,
            timeout=30):
        hdrs = {'OpenStack-API-Version': 'placement latest'}
        if token is not None:
            hdrs['X-Auth-Token'] = token
        hdrs.update(headers or {})
        return http_request(method, self.url + path, hdrs, body, timeout)
