"""touchd-web: web pages (a kiosk's Chromium) as clients of touchd — a WebSocket bridge to the
daemon's socket (server.py), the page's library touchd.js (typed by touchd.d.ts) and the
check of who owns a loopback peer (peercred.py). Run it as `touchd-web` or `touchd web`;
docs/web.md says how."""
from touchd_client import __version__  # one version: the repository's VERSION

__all__ = ["__version__", "main"]


def main(argv=None):
    from .server import main as _main
    return _main(argv)
