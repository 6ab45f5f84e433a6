#!/usr/bin/python3
"""Bring a database to an alembic revision with upstream placement 8.0.0's
own migration code (what its `placement-manage db sync` runs, which takes
no revision): t/schema/upstream-to.py URL REVISION [std]

With "std", then the standard traits and resource classes as placement
8.0.0 puts them at its start (deploy.update_database: the 345 traits of
Debian's os-traits 2.9.0), as in a database that placement last served.

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
from placement.objects import resource_class
from placement.objects import trait


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ['std']):
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
        if sys.argv[3:] == ['std']:
            ctx = db_api.DbContext()
            trait.ensure_sync(ctx)
            resource_class.ensure_sync(ctx)
    finally:
        os.unlink(f.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
