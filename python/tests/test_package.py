"""`pip install ./python` works (issue 22, item 3): offline (--no-index: the build backend is in
the tree, standard library only), leaves python/ as it was, and the installed module imports
from where it was installed — with --target, and into a venv."""
import os
import subprocess
import sys
import unittest

from support import PYTHON_DIR, REPO, TempDirTest

CHECK = ("import importlib.metadata as m, touchd_client as t; "
         "print(t.__file__); print(t.__version__, m.version('touchd-client')); t.TouchdClient")


def listing(top):
    return sorted(os.path.join(d, f) for d, dirs, files in os.walk(top)
                  for f in files if "__pycache__" not in d)


class PipInstall(TempDirTest):
    def pip(self, *args, python=()):
        before = listing(PYTHON_DIR)
        r = subprocess.run([sys.executable, "-m", "pip", *python, "install", "-q", "--no-index",
                            "--disable-pip-version-check", *args, "./python"], cwd=REPO, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(listing(PYTHON_DIR), before, "the install wrote into python/")

    def imports_from(self, python, where, env=None):
        r = subprocess.run([python, "-c", CHECK], cwd=self.tmp, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        path, versions = r.stdout.splitlines()
        self.assertTrue(path.startswith(os.path.realpath(where)) or path.startswith(where), path)
        module_version, installed_version = versions.split()
        self.assertEqual(module_version, installed_version)

    def test_target(self):
        target = self.path("site")
        self.pip("--target", target)
        self.imports_from(sys.executable, target, env=dict(os.environ, PYTHONPATH=target, PYTHONNOUSERSITE="1"))

    def test_venv(self):
        pip_version = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True).stdout
        if tuple(int(x) for x in pip_version.split()[1].split(".")[:2]) < (22, 3):
            raise unittest.SkipTest("pip --python needs pip 22.3: %s" % pip_version.strip())
        venv = self.path("venv")
        r = subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        python = os.path.join(venv, "bin", "python")
        self.pip(python=("--python", python))
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        self.imports_from(python, venv, env=env)
