#!/usr/bin/env python3
"""Runs one of the README's Python examples for scripts/readme-check, as written but for one
thing: TouchdClient.run() returns once the connection has ended (after handing on everything
that came before the end) — a program written for a kiosk runs forever, waiting for the next
daemon, and the check's daemon exits at the end of its capture.

    scripts/lib/readme_python.py SNIPPET.py

The client library is the repository's (python/ first on sys.path), not an installed one.
"""
import os
import runpy
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.dont_write_bytecode = True      # no __pycache__ in the repository from a check

import touchd_client  # noqa: E402

_run = touchd_client.TouchdClient.run


def run_until_the_connection_ends(self, until=None):
    ended = []
    self.on_disconnect(ended.append)
    _run(self, until=lambda: bool(ended) or (until is not None and until()))


touchd_client.TouchdClient.run = run_until_the_connection_ends
snippet = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(snippet, run_name="__main__")
