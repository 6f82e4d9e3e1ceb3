"""touchd-speak: speaks touchd's `speech` messages through speech-dispatcher (docs/accessibility.md,
"Speech"). The daemon has no sound device and no session; this client runs in the kiosk user's
session (systemd/touchd-speak.service), as Orca would. Its modules, each using only those before
it: ssip (one SSIP connection, every wait bounded), speaker (the rules: messages in, SSIP steps
out; pure), service (the loop over both sockets, reconnecting both, and the command line).
Standard library and touchd_client only. Run it as `touchd-speak` or `touchd speak`."""
from touchd_client import __version__  # one version: the repository's VERSION

__all__ = ["__version__", "main"]


def main(argv=None):
    from .service import main as _main
    return _main(argv)
