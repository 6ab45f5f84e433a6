#!/usr/bin/python3
"""Run one gabbi YAML file against a running server and report each test.

usage: gabbi_file.py URL FILE.yaml

URL is the mount point of the API (http://127.0.0.1:PORT/placement); the
file's relative URLs are resolved under it. Output, one line per test:

    ok <file>: <test name>
    not ok <file>: <test name>: <reason>     (+ indented detail lines)
    skip <file>: <test name>: <reason>

and a last line "RESULT <passed> <failed> <skipped>". Expected failures
(xfail) count as passed, unexpected successes as failed. A file that cannot
be loaded counts as one failed test. Exit status 1 when anything failed.
"""

import os
import sys
import traceback
import unittest

from gabbi import handlers
from gabbi import suitemaker
from gabbi import utils

DETAIL_LINES = int(os.environ.get('PL_TEST_DETAIL_LINES', '12'))


def _label(fname, test):
    data = getattr(test, 'test_data', None)
    if data and data.get('name'):
        return '%s: %s' % (fname, data['name'])
    return '%s: %s' % (fname, test.id())


def _reason(err):
    """First line of the exception message, and a few lines of detail."""
    if isinstance(err, str):
        text = err
    else:
        etype, value, _tb = err
        text = str(value) or etype.__name__
        if not isinstance(value, AssertionError):
            text = ''.join(traceback.format_exception_only(etype, value))
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return 'failed', []
    return lines[0], lines[1:1 + DETAIL_LINES]


class Result(unittest.TestResult):

    def __init__(self, fname):
        super().__init__()
        self.fname = fname
        self.passed = self.failed = self.skipped = 0

    def _fail(self, test, err):
        self.failed += 1
        first, rest = _reason(err)
        print('not ok %s: %s' % (_label(self.fname, test), first))
        for ln in rest:
            print('    ' + ln)
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1
        print('ok %s' % _label(self.fname, test))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.skipped += 1
        print('skip %s: %s' % (_label(self.fname, test), reason))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.passed += 1
        print('ok %s (expected failure)' % _label(self.fname, test))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._fail(test, 'unexpected success of an xfail test')


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    url, path = sys.argv[1], sys.argv[2]
    fname = os.path.basename(path)
    name = os.path.splitext(fname)[0]
    host, port, prefix, force_ssl = utils.host_info_from_target(url)
    result = Result(fname)
    try:
        with open(path, encoding='utf-8') as fh:
            data = utils.load_yaml(handle=fh, safe=True)
        if force_ssl:
            data.setdefault('defaults', {})['ssl'] = True
        handler_objects = [h() for h in handlers.RESPONSE_HANDLERS]
        suite = suitemaker.test_suite_from_dict(
            unittest.defaultTestLoader, name, data,
            os.path.dirname(os.path.abspath(path)), host, port, None, None,
            prefix=prefix, handlers=handler_objects,
            test_loader_name='pl-api')
    except Exception as exc:  # a broken file is one failed test
        result.failed += 1
        print('not ok %s: cannot load: %s' % (fname, str(exc).splitlines()[0]
                                              if str(exc) else repr(exc)))
    else:
        suite.run(result)
    print('RESULT %d %d %d' % (result.passed, result.failed, result.skipped))
    return 1 if result.failed else 0


if __name__ == '__main__':
    sys.exit(main())
