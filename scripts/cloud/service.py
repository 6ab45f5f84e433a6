#!/usr/bin/python3
"""Run one OpenStack service's console entry point by module.

    service.py NAME MODULE [ARGS...]

Debian's python3-nova, python3-glance and python3-neutron ship the Python
code without the daemons' scripts (those come with the nova-compute,
glance-api ... packages, whose postinst scripts would set up system
services). This calls MODULE's main() with sys.argv[0] = NAME, which is
what the installed script would do, so that oslo.config and oslo.log name
the program as usual.

With CLOUD_NOVA_VIRT_DIR set, that directory is added to the package
nova.virt before main() runs: nova-compute loads compute_driver as
nova.virt.<compute_driver> only, so the project's fake drivers
(scripts/cloud/cloud_fake.py) are found as nova.virt.cloud_fake. The module
is imported first, so that nova.cmd's eventlet monkey patching comes before
anything else of nova.
"""

import importlib
import os
import sys

if len(sys.argv) < 3:
    sys.stderr.write(__doc__)
    sys.exit(2)
name, module = sys.argv[1], sys.argv[2]
sys.argv = [name] + sys.argv[3:]
entry = importlib.import_module(module)
virt_dir = os.environ.get('CLOUD_NOVA_VIRT_DIR')
if virt_dir:
    import nova.virt
    nova.virt.__path__.append(virt_dir)
sys.exit(entry.main())
