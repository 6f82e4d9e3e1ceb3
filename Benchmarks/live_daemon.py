"""What the live-scene benchmarks share (mass-disconnect.py, scene-churn.py): a daemon on a
plain 800×480 scene whose client limits fit the run, its CPU and RSS from /proc, and a
line-reading client."""
import json, os, socket, subprocess, tempfile, time


def start(binary, clients, views, prefix):
    """Runs `binary run` on a config allowing `clients` clients of `views` views (plus room);
    returns (process, socket path) once the socket exists."""
    d = tempfile.mkdtemp(prefix=prefix)
    cfg = os.path.join(d, "c.json")
    json.dump({"screen": {"width": 800, "height": 480},
               "clients": {"max": clients + 10, "views": views + 10},
               "windows": [{"id": "main", "frame": [0, 0, 800, 480], "view": {"id": "root", "frame": [0, 0, 800, 480]}}]},
              open(cfg, "w"))
    sock = os.path.join(d, "s.sock")
    daemon = subprocess.Popen([binary, "run", "--config", cfg, "--socket", sock, "--log-level", "warning"],
                              stderr=subprocess.DEVNULL)
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    return daemon, sock


def stop(daemon):
    daemon.terminate()
    try:
        daemon.wait(10)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()


def cpu_s(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


class Client:
    """A connection past its hello and snapshot; `line()` reads one message, `ask()` sends a
    request and reads up to the reply of type `want` (an error raises)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""
        self.line(); self.line()

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError("the daemon closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, req, want):
        self.s.sendall((json.dumps(req) + "\n").encode())
        while True:
            m = self.line()
            if m.get("type") == want:
                return m
            if m.get("type") == "error":
                raise RuntimeError(m)
