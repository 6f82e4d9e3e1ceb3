"""`scripts/bench web`: a web page's latency beside a native client's, from one run (figures,
not pass/fail).

    scripts/bench web [--binary B] [--seconds 10] [--syncs 50] [--web-python PYTHON]

10 fingers at 120 Hz (the capture `scripts/bench latency` replays, bench_yardsticks.capture_120hz)
through `touchd run --replay --speed 1`, which stamps each frame with the CLOCK_MONOTONIC time
it was due: that is the event's time. Two clients read the same frames:
- native: Benchmarks/latency-client.c, one connection subscribed to frames; its read is
  CLOCK_MONOTONIC when epoll woke it;
- the page: Benchmarks/web/index.html in headless Chromium (chromium-driver, python3-selenium),
  served by touchd-web (python/touchd-web, Debian's python3-websockets; --web-python runs it
  under another Python, e.g. .build/websockets15/bin/python for websockets 15's asyncio API); it
  binds one view over the viewport with touchd.js, and its touchd:touch handler notes
  performance.now() at the first touch of each frame.
The page's clock (performance.now(): its own origin, coarsened by Chromium to 100 µs) is mapped
to CLOCK_MONOTONIC as NTP does: `--syncs` subscribe round trips through the bridge before the
replay and as many after it, each answered by a snapshot whose `time` is the daemon's
CLOCK_MONOTONIC when it was taken; the offset is that time minus the round trip's midpoint,
from the tightest round trip (its error at most half of it). Prints, per client, the frames and
the latency p50 / p99 / max in µs, the page's minus the native client's frame by frame, the
two offsets and their round trips, whether the page's p50 is within 2 ms of the native
client's (the goal, issue 42), and the daemon's own frame time → write figures (stats).

Needs what the web tests need (scripts/deps test: chromium, chromium-driver, python3-selenium,
python3-websockets) and a C compiler. The machine is shared and noisy: compare within one run.
"""
import importlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

from bench_yardsticks import capture_120hz, cc, needs_cc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE_DIR = os.path.join(ROOT, "Benchmarks", "web")
GOAL_MS = 2.0
DEBIAN_PYTHON = "/usr/bin/python3"


def wants_debian_python():
    """Debian's python3-selenium is imported by Debian's python3: scripts/bench runs itself again
    under it for this command when the one running it is another (and has no selenium)."""
    return (importlib.util.find_spec("selenium") is None and os.path.exists(DEBIAN_PYTHON)
            and os.path.realpath(sys.executable) != os.path.realpath(DEBIAN_PYTHON))


def add_arguments(ap):
    ap.add_argument("--seconds", type=float, default=10, help="length of the 120 Hz capture (default 10)")
    ap.add_argument("--syncs", type=int, default=50,
                    help="subscribe round trips for the page's clock, before the replay and again after it (default 50)")
    ap.add_argument("--web-python", metavar="PYTHON",
                    help="the Python that runs touchd-web (default: python/touchd-web's, Debian's /usr/bin/python3)")


def fail(message):
    print(f"scripts/bench web: {message}", flush=True)
    return 1


def percentiles(values):
    s = sorted(values)
    return s[len(s) // 2], s[len(s) * 99 // 100], s[-1]


def offset(samples):
    """(offset s, round trip ms) of the tightest [before ms, daemon s, after ms] sample."""
    before, daemon, after = min(samples, key=lambda s: s[2] - s[0])
    return daemon - (before + after) / 2000, after - before


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
    raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=800,480",
                "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 800, "height": 480, "deviceScaleFactor": 1, "mobile": False})
    return driver


def run(binary, args):
    needs_cc()
    if args.seconds <= 0 or args.syncs < 1:
        return fail("--seconds must be above 0 and --syncs at least 1")
    try:
        importlib.import_module("selenium")
        subprocess.run([args.web_python or DEBIAN_PYTHON, "-c", "import websockets"], check=True,
                       capture_output=True)
        for program in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
            if not os.access(program, os.X_OK):
                raise FileNotFoundError(program)
    except (ImportError, subprocess.CalledProcessError, FileNotFoundError) as e:
        return fail(f"needs chromium, chromium-driver, python3-selenium and websockets (scripts/deps test): {e}")
    processes = []
    with tempfile.TemporaryDirectory(prefix="touchd-bench-web-") as tmp:
        try:
            return bench(binary, args, tmp, processes)
        except TimeoutError as e:
            return fail(str(e))
        finally:
            for p in processes:
                if p.poll() is None:
                    p.terminate()
                    try:
                        p.wait(5)
                    except subprocess.TimeoutExpired:
                        p.kill()


def bench(binary, args, tmp, processes):
    client = cc(tmp, "latency-client.c", "latency-client")
    cap, cfg, sock = (os.path.join(tmp, n) for n in ("fingers-120hz.evemu", "touchd.json", "touchd.sock"))
    capture_120hz(cap, args.seconds)
    frames_expected = int(args.seconds * 120) + 1        # the moves, then the frame where all ten lift
    with open(cfg, "w") as f:
        json.dump({"screen": {"width": 800, "height": 480}, "windows": []}, f)
    log = open(os.path.join(tmp, "daemon.log"), "w")
    # Three clients: the native one, the page (its attach) and, once the page has synced, the
    # harness's, which starts the replay.
    daemon = subprocess.Popen([binary, "run", "--config", cfg, "--socket", sock, "--replay", cap, "--speed", "1",
                               "--wait-clients", "3", "--log-level", "warning"], stderr=log)
    processes.append(daemon)
    wait_for(lambda: os.path.exists(sock), 20, "the daemon's socket")
    port = free_port()
    web_log_path = os.path.join(tmp, "web.log")
    web_log = open(web_log_path, "w")
    web = os.path.join(ROOT, "python", "touchd-web")
    web_argv = ([args.web_python] if args.web_python else []) + [web, "--socket", sock, "--listen",
                                                                   f"127.0.0.1:{port}", "--static", PAGE_DIR]
    processes.append(subprocess.Popen(web_argv, stdout=web_log, stderr=subprocess.STDOUT))
    listening = wait_for(lambda: next((l for l in open(web_log_path) if "listening" in l), None), 20, "touchd-web")
    each = os.path.join(tmp, "native.txt")
    native = subprocess.Popen([client, sock, "1", each], stdout=subprocess.PIPE, text=True)
    processes.append(native)

    driver = browser()
    try:
        driver.get(f"http://127.0.0.1:{port}/")
        state = wait_for(lambda: driver.execute_script("return document.body.dataset.state") in ("ready", "failed")
                         and driver.execute_script("return document.body.dataset.state"), 30, "the page")
        if state != "ready":
            return fail(f"the page: {driver.execute_script('return bench.errors')}")
        sync = "bench.sync(arguments[0]).then(arguments[arguments.length - 1])"
        before = driver.execute_async_script(sync, args.syncs)
        harness = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        harness.connect(sock)
        harness.sendall(b'{"subscribe":{"types":["device"]}}\n')      # the third client: the replay starts
        wait_for(lambda: driver.execute_script("return bench.frames.length") >= frames_expected,
                 args.seconds + 30, f"the page's {frames_expected} frames")
        page_frames = driver.execute_script("return bench.frames")
        after = driver.execute_async_script(sync, args.syncs)
        errors = driver.execute_script("return bench.errors")
    finally:
        driver.quit()
    stats = daemon_stats(harness)
    harness.close()
    daemon.send_signal(signal.SIGTERM)
    native.communicate(timeout=30)
    daemon.wait(timeout=30)
    with open(each) as f:
        native_us = {int(seq): int(us) for seq, us in (line.split() for line in f)}
    if errors:
        return fail(f"the page reported {errors}")
    if not before or not after:
        return fail(f"no clock sample through the bridge ({len(before)} before the replay, {len(after)} after it)")
    if not native_us or not page_frames:
        return fail(f"no frame to compare: the native client read {len(native_us)}, the page handled {len(page_frames)}")

    (off_before, rtt_before), (off_after, rtt_after) = offset(before), offset(after)
    off = off_before if rtt_before <= rtt_after else off_after
    page_us = {seq: round((handled / 1000 + off - t) * 1e6) for seq, t, handled in page_frames}
    both = sorted(set(page_us) & set(native_us))
    api = listening.split("(")[1].split(")")[0]
    print(f"web: 10 fingers at 120 Hz for {args.seconds:g} s; each frame's time (a paced replay's due time, "
          f"CLOCK_MONOTONIC) → a native client's read (Benchmarks/latency-client.c), and → a page's touchd:touch "
          f"handler in headless Chromium through touchd-web ({api}); the same frames, µs")
    print(f"  page's clock: performance.now() + an offset from the tightest of {len(before)} subscribe round trips "
          f"through the bridge before the replay ({rtt_before * 1000:.0f} µs) and of {len(after)} after it "
          f"({rtt_after * 1000:.0f} µs); the two offsets differ by {abs(off_after - off_before) * 1e6:.0f} µs")
    rows = [("native client's read", [native_us[s] for s in both]), ("the page's handler", [page_us[s] for s in both]),
            ("page − native, per frame", [page_us[s] - native_us[s] for s in both])]
    if not both:
        return fail(f"the native client and the page have no frame in common ({len(native_us)} and {len(page_us)} frames)")
    for name, values in rows:
        p50, p99, most = percentiles(values)
        print(f"  {name:<26} {len(values):>5} frames  min {min(values):>6}  p50 {p50:>6}  p99 {p99:>6}  max {most:>6}")
    if len(both) != frames_expected or len(native_us) != frames_expected:
        print(f"  (frames: {frames_expected} replayed, the native client {len(native_us)}, the page {len(page_us)})")
    n50, p50 = percentiles(rows[0][1])[0], percentiles(rows[1][1])[0]
    gap = (p50 - n50) / 1000
    print(f"  goal, the page's p50 within {GOAL_MS:g} ms of the native client's: "
          f"{'holds' if gap <= GOAL_MS else 'does not hold'} ({gap:+.2f} ms)")
    if stats:
        i = stats["inputLatencyMicros"]
        print(f"  the daemon's own figures (stats, every write: the native client's and the bridge's): frame's time → "
              f"written p50 {i['p50']}  p99 {i['p99']}  max {i['max']}")
    return 0


def daemon_stats(sock):
    sock.settimeout(5)
    try:
        sock.sendall(b'{"stats":true}\n')
        buf = b""
        while True:
            data = sock.recv(65536)
            if not data:
                return None
            buf += data
            *lines, buf = buf.split(b"\n")
            for line in lines:
                if line.startswith(b'{"type":"stats"'):
                    return json.loads(line)
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit("run it as scripts/bench web")
