#!/usr/bin/python3
"""Allocation candidates stay exact with the provider cache of every
child: after each kind of change, through the API or straight into the
database as another host or upstream placement would write it, every
answer (many requests on fresh connections, so that each child answers
some) shows the change at once.

usage: check_candidate_cache.py API_URL DB_URL METRICS_URL cached|uncached
The changes: an inventory (PUT, and a row updated with its provider's
generation in SQL), traits, aggregates at microversion 1.18 (which moves
no generation), a custom class renamed at 1.6 (nor does that), an
allocation, a provider deleted. cached: the metrics show the cache
answering (hits); uncached (PlacementProviderCache 0): they show none.
Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import urllib.request

from placement_client import Api, check
from db_connect import connect_any as connect

RP1 = 'c0c0c0c0-0000-4000-8000-000000000001'
RP2 = 'c0c0c0c0-0000-4000-8000-000000000002'
AGG = 'c0c0c0c0-aaaa-4000-8000-000000000001'
TRIES = 8


class Placement:
    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None, mv='1.39'):
        """A request on a fresh connection (any child may answer)."""
        api = Api(self.url)
        api.conn.request(method, api.prefix + path,
                         body=json.dumps(body) if body is not None else None,
                         headers={'x-auth-token': 'admin',
                                  'accept': 'application/json',
                                  'content-type': 'application/json',
                                  'openstack-api-version': 'placement ' + mv})
        resp = api.conn.getresponse()
        text = resp.read().decode('utf-8')
        api.conn.close()
        return resp.status, json.loads(text) if text else None

    def generation(self, rp):
        return self.call('GET', '/resource_providers/' + rp)[1]['generation']

    def candidates(self, query):
        """The provider summaries of TRIES answers."""
        out = []
        for _ in range(TRIES):
            st, body = self.call('GET', '/allocation_candidates?' + query)
            out.append(body['provider_summaries'] if st == 200 else st)
        return out


def all_show(name, answers, test):
    bad = [a for a in answers if not test(a)]
    check(name, not bad, 'answers that did not: %d of %d, first: %s' % (
        len(bad), len(answers), bad[:1]))


def inventory(total, rc='VCPU'):
    return {rc: {'total': total}}


def cache_counts(metrics_url):
    text = urllib.request.urlopen(metrics_url, timeout=10).read().decode()
    counts = {}
    for line in text.splitlines():
        for kind in ('hits', 'misses'):
            if line.startswith('placement_provider_cache_%s_total ' % kind):
                counts[kind] = float(line.split()[1])
    return counts


def main():
    api_url, db_url, metrics_url, mode = sys.argv[1:5]
    pl = Placement(api_url)
    conn, mark = connect(db_url)

    for rp, name in ((RP1, 'cache-rp1'), (RP2, 'cache-rp2')):
        pl.call('POST', '/resource_providers', {'uuid': rp, 'name': name})
        pl.call('PUT', '/resource_providers/%s/inventories' % rp,
                {'resource_provider_generation': pl.generation(rp),
                 'inventories': inventory(8)})
    query = 'resources=VCPU:1'
    all_show('both providers, capacity 8', pl.candidates(query),
             lambda s: s[RP1]['resources']['VCPU']['capacity'] == 8 and
             s[RP2]['resources']['VCPU']['capacity'] == 8)

    # an inventory through the API
    pl.call('PUT', '/resource_providers/%s/inventories' % RP1,
            {'resource_provider_generation': pl.generation(RP1),
             'inventories': inventory(16)})
    all_show('inventory put through the API: capacity 16 everywhere',
             pl.candidates(query),
             lambda s: s[RP1]['resources']['VCPU']['capacity'] == 16)

    # an inventory written by another host: the row and the generation,
    # in one transaction, as placement writes them
    cur = conn.cursor()
    cur.execute('UPDATE inventories SET total = 24 WHERE resource_provider_id'
                ' = (SELECT id FROM resource_providers WHERE uuid = %s)'
                % mark, (RP1,))
    cur.execute('UPDATE resource_providers SET generation = generation + 1 '
                'WHERE uuid = ' + mark, (RP1,))
    conn.commit()
    all_show('inventory written by another host: capacity 24 everywhere',
             pl.candidates(query),
             lambda s: s[RP1]['resources']['VCPU']['capacity'] == 24)

    # traits
    pl.call('PUT', '/traits/CUSTOM_CACHE_T')
    pl.call('PUT', '/resource_providers/%s/traits' % RP2,
            {'resource_provider_generation': pl.generation(RP2),
             'traits': ['CUSTOM_CACHE_T']})
    all_show('a trait set: only its provider has it',
             pl.candidates(query + '&required=CUSTOM_CACHE_T'),
             lambda s: list(s) == [RP2] and
             s[RP2]['traits'] == ['CUSTOM_CACHE_T'])
    pl.call('PUT', '/resource_providers/%s/traits' % RP2,
            {'resource_provider_generation': pl.generation(RP2),
             'traits': []})
    all_show('the trait taken away: no candidate',
             pl.candidates(query + '&required=CUSTOM_CACHE_T'),
             lambda s: s == {})

    # aggregates before 1.19 move no generation
    gen = pl.generation(RP1)
    pl.call('PUT', '/resource_providers/%s/aggregates' % RP1, [AGG],
            mv='1.18')
    check('aggregates at 1.18: the generation did not move',
          pl.generation(RP1) == gen)
    all_show('member_of sees the new aggregate',
             pl.candidates(query + '&member_of=' + AGG),
             lambda s: list(s) == [RP1])
    pl.call('PUT', '/resource_providers/%s/aggregates' % RP1, [], mv='1.18')
    all_show('member_of sees it gone',
             pl.candidates(query + '&member_of=' + AGG), lambda s: s == {})

    # a custom class renamed (1.2 - 1.6) moves no generation either
    pl.call('POST', '/resource_classes', {'name': 'CUSTOM_CACHE_OLD'},
            mv='1.2')
    pl.call('PUT', '/resource_providers/%s/inventories' % RP2,
            {'resource_provider_generation': pl.generation(RP2),
             'inventories': dict(inventory(8),
                                 CUSTOM_CACHE_OLD={'total': 4})})
    all_show('a custom class in the summaries',
             pl.candidates(query),
             lambda s: 'CUSTOM_CACHE_OLD' in s[RP2]['resources'])
    st, _ = pl.call('PUT', '/resource_classes/CUSTOM_CACHE_OLD',
                    {'name': 'CUSTOM_CACHE_NEW'}, mv='1.6')
    check('the class renamed at 1.6', st == 200, st)
    all_show('the summaries give its new name',
             pl.candidates(query),
             lambda s: 'CUSTOM_CACHE_NEW' in s[RP2]['resources'] and
             'CUSTOM_CACHE_OLD' not in s[RP2]['resources'])

    # an allocation
    st, _ = pl.call('PUT', '/allocations/c0c0c0c0-cccc-4000-8000-000000000001',
                    {'allocations': {RP2: {'resources': {'VCPU': 3}}},
                     'consumer_generation': None,
                     'consumer_type': 'INSTANCE',
                     'project_id': 'c0c0c0c0-dddd-4000-8000-000000000001',
                     'user_id': 'c0c0c0c0-eeee-4000-8000-000000000001'})
    check('an allocation made', st == 204, st)
    all_show('its usage is counted',
             pl.candidates(query),
             lambda s: s[RP2]['resources']['VCPU']['used'] == 3)
    pl.call('DELETE', '/allocations/c0c0c0c0-cccc-4000-8000-000000000001')
    all_show('its release too', pl.candidates(query),
             lambda s: s[RP2]['resources']['VCPU']['used'] == 0)

    # a provider deleted
    pl.call('DELETE', '/resource_providers/' + RP1)
    all_show('a deleted provider is gone', pl.candidates(query),
             lambda s: list(s) == [RP2])

    counts = cache_counts(metrics_url)
    if mode == 'cached':
        check('the cache answered (%s)' % counts, counts.get('hits', 0) > 0)
    else:
        check('no cache, no hits (%s)' % counts,
              counts.get('hits', -1) == 0 and counts.get('misses', 0) > 0)
    conn.close()


if __name__ == '__main__':
    main()
