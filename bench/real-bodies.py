#!/usr/bin/python3
"""Write the largest real request bodies of each route that takes a big
one, as nova and an operator's tools would send them, into DIR: what
JSON_COST_FACTOR must let through (docs/directives.md,
PlacementMaxBodySize).

    bench/real-bodies.py DIR
    build/json-cost DIR/*.json

nova sends json.dumps's own text (", " and ": "); the "compact" bodies
leave the blanks out, the densest a client can write. Prints each
file's name and size.
"""
import json
import os
import sys
import uuid

MB = 1024 * 1024


def ids(n, seed):
    """n stable uuids"""
    return [str(uuid.uuid5(uuid.NAMESPACE_OID, '%s-%d' % (seed, i)))
            for i in range(n)]


def nova_inventory(total):
    return {'total': total, 'reserved': 0, 'min_unit': 1,
            'max_unit': total, 'step_size': 1, 'allocation_ratio': 16.0}


def consumer(rps, classes, short=False):
    return {'allocations': {rp: {'resources': {c: 1 for c in classes}}
                            for rp in rps},
            'project_id': 'p' if short else uuid.uuid4().hex,
            'user_id': 'u' if short else uuid.uuid4().hex,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}


def bodies():
    classes = ['CUSTOM_D%05d' % i for i in range(40000)]
    # PUT .../inventories (1 MB): nova's records; "total" alone, compact
    yield ('inventories-nova-5000', False,
           {'resource_provider_generation': 1,
            'inventories': {c: nova_inventory(8) for c in classes[:5000]}})
    yield ('inventories-total-1500-compact', True,
           {'resource_provider_generation': 1,
            'inventories': {c: {'total': 1} for c in classes[:1500]}})
    yield ('inventories-total-38000-compact', True,
           {'resource_provider_generation': 1,
            'inventories': {c: {'total': 1} for c in classes[:38000]}})
    # PUT /allocations/{uuid} (1 MB): one consumer on 10,000 providers
    yield ('allocation-10000-providers', False,
           consumer(ids(10000, 'rp'), ['VCPU']))
    # POST /allocations (8 MB)
    yield ('post-allocations-27000x3', False,
           {c: consumer(ids(1, c), ['VCPU', 'MEMORY_MB', 'DISK_GB'])
            for c in ids(27000, 'c')})
    yield ('post-allocations-42000x1-short-compact', True,
           {c: consumer(ids(1, 'rp'), ['VCPU'], short=True)
            for c in ids(42000, 'c')})
    # POST /reshaper (8 MB): a big host's providers and consumers
    rps = ids(8000, 'rp')
    yield ('reshaper-8000-17500', False,
           {'inventories': {rp: {'resource_provider_generation': 1,
                                 'inventories': {'VCPU': nova_inventory(64),
                                                 'MEMORY_MB':
                                                 nova_inventory(65536)}}
                            for rp in rps},
            'allocations': {c: consumer([rps[i % len(rps)]],
                                        ['VCPU', 'MEMORY_MB'])
                            for i, c in enumerate(ids(17500, 'c'))}})
    # PUT .../traits and .../aggregates (8 MB)
    yield ('traits-100000x80', False,
           {'resource_provider_generation': 1,
            'traits': ['CUSTOM_%073d' % i for i in range(100000)]})
    yield ('traits-520000-short-compact', True,
           {'resource_provider_generation': 1,
            'traits': ['CUSTOM_%06d' % i for i in range(520000)]})
    yield ('aggregates-210000-compact', True,
           {'resource_provider_generation': 1,
            'aggregates': ids(210000, 'agg')})


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, compact, doc in bodies():
        text = json.dumps(doc, separators=(',', ':') if compact else None)
        path = os.path.join(out, name + '.json')
        with open(path, 'w') as f:
            f.write(text)
        print('%-48s %6.2f MB' % (path, len(text) / MB))


if __name__ == '__main__':
    main()
