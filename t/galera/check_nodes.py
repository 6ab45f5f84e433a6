#!/usr/bin/python3
"""After the writers: what every node of the Galera cluster holds.

    check_nodes.py DBURL1 DBURL2 DBURL3

Each DBURL is mysql://user:pass@host:port/db of one node. Each node is
read with wsrep_sync_wait = 7, so it has applied everything the cluster
committed before the read. Prints "ok ..." / "not ok ..." lines:
no usage above capacity on any node (per provider and class), every node
holds the same allocations, consumers and provider generations, and no
consumer holds the same provider and class twice.
"""
import sys
import urllib.parse

import pymysql

CAPACITY = ("SELECT rp.uuid, rc.name, (i.total - i.reserved) "
            "* i.allocation_ratio, COALESCE(SUM(a.used), 0) "
            "FROM inventories i JOIN resource_providers rp "
            "ON rp.id = i.resource_provider_id JOIN resource_classes rc "
            "ON rc.id = i.resource_class_id LEFT JOIN allocations a "
            "ON a.resource_provider_id = i.resource_provider_id "
            "AND a.resource_class_id = i.resource_class_id "
            "GROUP BY rp.uuid, rc.name, i.total, i.reserved, "
            "i.allocation_ratio")
ALLOCATIONS = ("SELECT a.consumer_id, rp.uuid, rc.name, a.used "
               "FROM allocations a JOIN resource_providers rp "
               "ON rp.id = a.resource_provider_id JOIN resource_classes rc "
               "ON rc.id = a.resource_class_id")
STATE = {
    'allocations': ALLOCATIONS,
    'consumers': "SELECT uuid, generation FROM consumers",
    'providers': "SELECT uuid, generation FROM resource_providers",
}


def check(name, cond, detail=''):
    print('%s %s%s' % ('ok' if cond else 'not ok', name,
                       '' if cond else ': %s' % detail))


def read_node(url):
    u = urllib.parse.urlsplit(url)
    db = pymysql.connect(host=u.hostname, port=u.port, user=u.username,
                         password=u.password, database=u.path.lstrip('/'))
    cur = db.cursor()
    cur.execute('SET SESSION wsrep_sync_wait = 7')
    out = {}
    for key, sql in STATE.items():
        cur.execute(sql)
        out[key] = sorted(cur.fetchall())
    cur.execute(CAPACITY)
    out['over'] = ['%s %s %s > %s' % (rp, rc, used, cap)
                   for rp, rc, cap, used in cur.fetchall() if used > cap]
    db.close()
    return out


def main():
    nodes = [read_node(u) for u in sys.argv[1:]]
    for n, node in enumerate(nodes, 1):
        check('node %d: no usage above capacity (%d allocation rows)'
              % (n, len(node['allocations'])), not node['over'],
              '; '.join(node['over'][:5]))
        keys = [(c, rp, rc) for c, rp, rc, _ in node['allocations']]
        check('node %d: no allocation held twice' % n,
              len(keys) == len(set(keys)))
    for key in STATE:
        differ = [n for n, node in enumerate(nodes[1:], 2)
                  if node[key] != nodes[0][key]]
        check('all nodes hold the same %s (%d rows)'
              % (key, len(nodes[0][key])), not differ,
              'node(s) %s differ from node 1' % differ)


if __name__ == '__main__':
    main()
