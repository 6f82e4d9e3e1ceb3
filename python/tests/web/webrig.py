"""What the web tests share: a free loopback port, a bounded wait, and processes that end with
the test (their output in the test's directory)."""
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out after %g s waiting for %s" % (timeout, what))


class Processes:
    """For a TempDirTest: `start` runs a program with its output in NAME.log; it is stopped
    (TERM, then KILL after 5 s) when the test ends."""

    def start(self, argv, name):
        log = open(self.path(name + ".log"), "w")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.tmp)
        self.addCleanup(self.stop, proc, log)
        return proc

    @staticmethod
    def stop(proc, log):
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()
