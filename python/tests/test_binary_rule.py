"""Which touchd the harnesses run (scripts/lib/binary.py built_touchd, which python/tests and
examples/kiosk's test use): $TOUCHD_BINARY, else the newest executable build, debug on a tie.
The same cases as the Swift rule's TouchdBinaryTests."""
import os
import sys
import tempfile
import unittest
from unittest import mock

from support import REPO

sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))
from binary import built_touchd  # noqa: E402


class BinaryRuleTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.debug = os.path.join(self.tmp.name, "debug")
        self.release = os.path.join(self.tmp.name, "release")
        for p in (self.debug, self.release):
            with open(p, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(p, 0o755)
        self.env = mock.patch.dict(os.environ, {"TOUCHD_BINARY": ""})
        self.env.start()

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def times(self, debug_ns, release_ns):
        os.utime(self.debug, ns=(debug_ns, debug_ns))
        os.utime(self.release, ns=(release_ns, release_ns))
        return built_touchd((self.debug, self.release))

    def test_the_newest_build_wins_debug_on_a_tie(self):
        t = 1_700_000_000 * 10**9
        self.assertEqual(self.times(t, t + 100 * 10**9), self.release)
        self.assertEqual(self.times(t + 200 * 10**9, t + 100 * 10**9), self.debug)
        self.assertEqual(self.times(t + 1, t), self.debug)            # one nanosecond newer
        self.assertEqual(self.times(t, t + 1), self.release)
        self.assertEqual(self.times(t, t), self.debug)                # equal: debug

    def test_the_environment_variable_wins_and_empty_is_unset(self):
        self.times(0, 10**9)
        with mock.patch.dict(os.environ, {"TOUCHD_BINARY": "/opt/touchd/bin/touchd"}):
            self.assertEqual(built_touchd((self.debug, self.release)), "/opt/touchd/bin/touchd")
        self.assertEqual(built_touchd((self.debug, self.release)), self.release)

    def test_missing_or_not_executable_builds_are_left_out(self):
        self.times(0, 10**9)
        os.chmod(self.release, 0o644)
        self.assertEqual(built_touchd((self.debug, self.release)), self.debug)
        os.remove(self.debug)
        self.assertIsNone(built_touchd((self.debug, self.release)))


if __name__ == "__main__":
    unittest.main()
