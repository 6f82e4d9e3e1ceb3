"""What the web tests share: a free loopback port, processes that end with the
test (their output in the test's directory), and the two websockets APIs touchd-web runs on."""
import os
import socket
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WEB = os.path.join(REPO, "python", "touchd-web")

# touchd-web runs on Debian's python3-websockets: 10.4 on Debian 12 (its legacy API), 15.0.1 on
# Debian 13 (its asyncio API). The tests of the bridge run under both: under the launcher's
# /usr/bin/python3 (this machine's Debian), and again under NEWER_PYTHON, by default a venv with
# websockets 15.0.1 that `scripts/deps test` makes in .build/websockets15 (Debian 12 has no
# package of a websockets with the newer API; the venv is the tests' alone, nothing installed or
# shipped uses it). TOUCHD_WEB_NEWER_PYTHON names another such Python.
NEWER_PYTHON = os.environ.get("TOUCHD_WEB_NEWER_PYTHON") or os.path.join(REPO, ".build", "websockets15", "bin", "python")
NEWER_MISSING = None if os.access(NEWER_PYTHON, os.X_OK) else (
    "no Python with websockets 15 at %s (scripts/deps test makes it: a venv with websockets==15.0.1, "
    "Debian 13's, for touchd-web's asyncio API)" % NEWER_PYTHON)


class Launcher:
    """For a test class that runs touchd-web: web_argv() is how. By default the launcher
    (python/touchd-web, Debian's /usr/bin/python3 and its websockets); web_api, when set, is the
    API the listening line must name."""
    web_python = None
    web_api = None

    def web_argv(self):
        return [self.web_python, WEB] if self.web_python else [WEB]

    def check_api(self, listening_line):
        if self.web_api:
            self.assertIn(", %s API)" % self.web_api, listening_line)


class UnderNewerWebsockets:
    """Mixin (before the test class it extends): touchd-web under NEWER_PYTHON, the asyncio API."""
    web_python = NEWER_PYTHON
    web_api = "asyncio"


def chromium(test):
    """Debian's chromium, headless at 800x480 with a touch kiosk's flags, driven by
    chromium-driver through python3-selenium; quit when `test` ends."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=800,480",
                "--disable-pinch", "--overscroll-history-navigation=0", "--disable-background-timer-throttling",
                "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    test.addCleanup(driver.quit)
    driver.set_script_timeout(20)
    return driver


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
