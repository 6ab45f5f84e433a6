#!/usr/bin/python3
"""Whether consumer rows exist in the test database (issue 13: a write
that fails leaves no consumer behind, not even for a moment's retry).

usage: check_consumer_rows.py DB_URL absent|present NAME UUID...
Prints one "ok ..." / "not ok ..." line per uuid.
"""

import sys

from db_connect import connect_any


def main():
    db_url, want, name = sys.argv[1:4]
    conn, mark = connect_any(db_url)
    cur = conn.cursor()
    for uuid in sys.argv[4:]:
        cur.execute('SELECT COUNT(*) FROM consumers WHERE uuid = ' + mark,
                    (uuid,))
        n = cur.fetchone()[0]
        ok = (n == 0) if want == 'absent' else (n == 1)
        print('%s consumer rows: %s: %s %s%s' % (
            'ok' if ok else 'not ok', name, uuid, want,
            '' if ok else ' (%d rows)' % n))
    conn.close()


if __name__ == '__main__':
    main()
