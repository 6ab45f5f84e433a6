#!/usr/bin/python3
"""A memcached stand-in for t/deploy/run: the text protocol commands that
httpd's mod_socache_memcache (apr_memcache) sends, in one process.

usage: tiny_memcached.py PORT LOGFILE

Listens on 127.0.0.1:PORT; keeps entries in memory with their expiry;
appends one line per command to LOGFILE ("set KEY", "get KEY hit|miss",
"delete KEY"), so a test can tell that the token cache of the converted
configuration really lives in the memcache the file named. Why not the
real memcached: it is not a dependency of the project, and the test only
needs to see the module use the server its placement.conf gave.
"""

import socketserver
import sys
import threading
import time

STORE = {}
LOCK = threading.Lock()
LOG = None


def log(line):
    with LOCK:
        LOG.write(line + '\n')
        LOG.flush()


def expiry(exptime):
    t = int(exptime)
    if t == 0:
        return None
    # memcached: more than 30 days is an absolute Unix time
    return t if t > 30 * 24 * 3600 else time.time() + t


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            line = self.rfile.readline()
            if not line:
                return
            parts = line.decode('latin-1').split()
            if not parts:
                continue
            cmd, args = parts[0], parts[1:]
            if cmd in ('set', 'add', 'replace') and len(args) >= 4:
                key, flags, exptime, size = args[:4]
                data = self.rfile.read(int(size) + 2)[:-2]
                with LOCK:
                    present = key in STORE
                    store = (cmd == 'set' or (cmd == 'add') != present)
                    if store:
                        STORE[key] = (int(flags), expiry(exptime), data)
                log('%s %s' % (cmd, key))
                if 'noreply' not in args:
                    self.wfile.write(b'STORED\r\n' if store
                                     else b'NOT_STORED\r\n')
            elif cmd in ('get', 'gets'):
                out = []
                for key in args:
                    with LOCK:
                        item = STORE.get(key)
                        if item and item[1] is not None and \
                                item[1] < time.time():
                            del STORE[key]
                            item = None
                    log('get %s %s' % (key, 'hit' if item else 'miss'))
                    if item:
                        out.append(b'VALUE %s %d %d\r\n%s\r\n' % (
                            key.encode('latin-1'), item[0], len(item[2]),
                            item[2]))
                self.wfile.write(b''.join(out) + b'END\r\n')
            elif cmd == 'delete' and args:
                with LOCK:
                    found = STORE.pop(args[0], None) is not None
                log('delete %s' % args[0])
                self.wfile.write(b'DELETED\r\n' if found
                                 else b'NOT_FOUND\r\n')
            elif cmd == 'version':
                self.wfile.write(b'VERSION 1.6.0-tiny\r\n')
            elif cmd == 'stats':
                self.wfile.write(b'STAT curr_items %d\r\nEND\r\n'
                                 % len(STORE))
            elif cmd == 'quit':
                return
            else:
                self.wfile.write(b'ERROR\r\n')
            self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main(argv):
    global LOG
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    LOG = open(argv[2], 'a', encoding='latin-1')
    with Server(('127.0.0.1', int(argv[1])), Handler) as srv:
        srv.serve_forever()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
