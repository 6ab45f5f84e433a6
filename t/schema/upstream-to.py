#!/usr/bin/python3
"""Bring a database to an alembic revision with upstream placement 8.0.0's
own migration code (what its `placement-manage db sync` runs, which takes
no revision): t/schema/upstream-to.py URL REVISION

URL is upstream's [placement_database] connection. Needs Debian's
placement-common (python3-placement); exits 1 with alembic's error.
"""
import os
import sys
import tempfile

from oslo_config import cfg

from placement import conf
from placement import db_api
from placement.db.sqlalchemy import migration


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    url, revision = sys.argv[1], sys.argv[2]
    with tempfile.NamedTemporaryFile('w', suffix='.conf',
                                     delete=False) as f:
        f.write('[placement_database]\nconnection = %s\n' % url)
    try:
        config = cfg.ConfigOpts()
        conf.register_opts(config)
        config(['--config-file', f.name], project='placement',
               default_config_files=[])
        db_api.configure(config)
        migration.upgrade(revision)
    finally:
        os.unlink(f.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
