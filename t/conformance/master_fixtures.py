#!/usr/bin/python3
"""run_gabbits.py with what upstream master's test set-up does differently.

../shared/conformance/run_gabbits.py runs gabbit files with placement
8.0.0's fixture classes (Debian's python3-placement) and Debian 12's gabbi
2.4.0. Upstream master's gabbit files expect three things of master's
set-up that 8.0.0's lacks; this program adds them, then hands over to
run_gabbits.main() with the same arguments:

* the environment names master's APIFixture exports besides 8.0.0's
  (RP_UUID1, RP_NAME1, RP_UUID2, RP_NAME2, CUSTOM_RES_CLASS1,
  CUSTOM_RES_CLASS2, ADMIN_PROJECT_ID, SERVICE_PROJECT_ID);
* the NUMA network fixtures giving their FPGA providers inventory of the
  standard FPGA class, where 8.0.0's used CUSTOM_FPGA (upstream commit
  ef717035, "Use standard FPGA resource class");
* response_strings entries written /like this/ matched as a regular
  expression, as gabbi does since 3.0.0 (master's fixtures are written for
  gabbi 4); gabbi 2.4.0 looks for the slashes literally.

Nothing here changes what a request sends or what a response must hold
beyond those three. Used by t/conformance/master through t/conformance/run
(CONFORMANCE_HARNESS); the harness folder is $CONFORMANCE (default
../shared/conformance beside the checkout).
"""

import os
import re
import sys


def _harness_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, '..', '..', '..', 'shared', 'conformance')
    return os.path.abspath(os.environ.get('CONFORMANCE') or default)


if __name__ == '__main__' and os.environ.get('PYTHONHASHSEED') is None:
    # run_gabbits.py re-executes itself with a fixed hash seed (so that the
    # standard traits get the same ids after every reset); it cannot when
    # imported, so do the same here before anything is loaded.
    os.environ['PYTHONHASHSEED'] = '0'
    os.execv(sys.executable, [sys.executable] + sys.argv)

sys.path.insert(0, _harness_dir())
import run_gabbits  # noqa: E402


# Names master's APIFixture.start_fixture sets that 8.0.0's does not: the
# second and third providers and custom classes of the secure-rbac files,
# and the admin and service projects they act from. Values as master's: a
# fresh UUID each, the classes fixed.
FRESH_UUID_NAMES = ('RP_UUID1', 'RP_NAME1', 'RP_UUID2', 'RP_NAME2',
                    'ADMIN_PROJECT_ID', 'SERVICE_PROJECT_ID')
FIXED_NAMES = {'CUSTOM_RES_CLASS1': 'CUSTOM_IRON_NFV1',
               'CUSTOM_RES_CLASS2': 'CUSTOM_IRON_NFV2'}


def export_master_names(api_fixture_class):
    """Make every APIFixture (and subclass) export master's extra names."""
    from oslo_utils import uuidutils
    original = api_fixture_class.start_fixture

    def start_fixture(self):
        original(self)
        for name in FRESH_UUID_NAMES:
            os.environ[name] = uuidutils.generate_uuid()
        os.environ.update(FIXED_NAMES)

    api_fixture_class.start_fixture = start_fixture


class _StandardFPGA(object):
    """8.0.0's test_base helpers, but inventory of CUSTOM_FPGA becomes FPGA.

    Only the NUMA network fixtures ask for CUSTOM_FPGA; master asks for the
    standard class in the same places and nothing else changed there.
    """

    def __init__(self, helpers):
        self._helpers = helpers

    def __getattr__(self, name):
        return getattr(self._helpers, name)

    def add_inventory(self, rp, rc, total, **kwargs):
        if rc == 'CUSTOM_FPGA':
            rc = 'FPGA'
        return self._helpers.add_inventory(rp, rc, total, **kwargs)


def use_standard_fpga(fixture_module):
    """Run NUMANetworkFixture's set-up with _StandardFPGA as its helpers."""
    cls = fixture_module.NUMANetworkFixture
    original = cls.start_fixture

    def start_fixture(self):
        helpers = fixture_module.tb
        fixture_module.tb = _StandardFPGA(helpers)
        try:
            original(self)
        finally:
            fixture_module.tb = helpers

    cls.start_fixture = start_fixture


def regex_response_strings():
    """Replace gabbi's response_strings handler by one that knows /regex/.

    As gabbi 3.0.0 and later: an entry that starts and ends with "/" (and
    is longer than one character) is a regular expression searched for in
    the body, with substitutions ($ENVIRON, ...) escaped inside it; any
    other entry must appear in the body as it is.
    """
    from gabbi import handlers
    from gabbi.handlers import core

    class RegexAwareStrings(core.StringResponseHandler):
        def action(self, test, expected, value=None):
            is_regex = (isinstance(expected, str) and len(expected) > 1
                        and expected.startswith('/')
                        and expected.endswith('/'))
            if not is_regex:
                return super(RegexAwareStrings, self).action(
                    test, expected, value)
            pattern = test.replace_template(expected, escape_regex=True)
            pattern = pattern[1:-1]
            if re.search(pattern, test.output) is None:
                raise AssertionError(
                    'response body does not match /%s/: %s'
                    % (pattern, test.output))

    at = handlers.RESPONSE_HANDLERS.index(core.StringResponseHandler)
    handlers.RESPONSE_HANDLERS[at] = RegexAwareStrings


def install():
    """Wrap run_gabbits' fixture set-up so that master's deltas apply."""
    original = run_gabbits.patch_upstream_fixtures

    def patch_upstream_fixtures():
        fixture_module = original()
        export_master_names(fixture_module.APIFixture)
        use_standard_fpga(fixture_module)
        return fixture_module

    run_gabbits.patch_upstream_fixtures = patch_upstream_fixtures
    regex_response_strings()


if __name__ == '__main__':
    install()
    try:
        sys.exit(run_gabbits.main())
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
