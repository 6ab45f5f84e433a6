# nova's compute API for mod_wsgi (scripts/cloud/cloud.sh): what Debian's
# nova-api package installs as /usr/bin/nova-api-wsgi. The configuration
# (nova.conf, api-paste.ini) is found through OS_NOVA_CONFIG_DIR, which
# httpd's environment passes on to its WSGI daemon.
from nova.api.openstack.compute.wsgi import init_application

application = init_application()
