"""`pip install ./python` works (issue 22, item 3): offline (--no-index: the build backend is in
the tree, standard library only), leaves python/ as it was, and the installed package imports
from where it was installed — with --target, into a venv, and from its sdist alone. Its version
is the repository's VERSION file (issue 32: one version), installed or from the source tree."""
import os
import subprocess
import sys
import tarfile
import unittest

from support import PYTHON_DIR, REPO, TempDirTest

sys.path.insert(0, os.path.join(PYTHON_DIR, "backend"))
import touchd_build  # noqa: E402
import touchd_client  # noqa: E402

with open(os.path.join(REPO, "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.read().strip()

CHECK = ("import importlib.metadata as m, touchd_client as t; "
         "print(t.__file__); print(t.__version__, m.version('touchd-client')); t.TouchdClient")


def listing(top):
    return sorted(os.path.join(d, f) for d, dirs, files in os.walk(top)
                  for f in files if "__pycache__" not in d)


class PipInstall(TempDirTest):
    def pip(self, *args, python=(), source="./python"):
        before = listing(PYTHON_DIR)
        r = subprocess.run([sys.executable, "-m", "pip", *python, "install", "-q", "--no-index",
                            "--disable-pip-version-check", *args, source], cwd=REPO, capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(listing(PYTHON_DIR), before, "the install wrote into python/")

    def imports_from(self, python, where, env=None):
        r = subprocess.run([python, "-c", CHECK], cwd=self.tmp, env=env, capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        path, versions = r.stdout.splitlines()
        self.assertTrue(path.startswith(os.path.realpath(where)) or path.startswith(where), path)
        module_version, installed_version = versions.split()
        self.assertEqual((module_version, installed_version), (VERSION, VERSION))

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

    def test_from_the_sdist_alone(self):
        # the sdist unpacked where no repository is above it: VERSION travels in it
        name = touchd_build.build_sdist(self.tmp)
        with tarfile.open(os.path.join(self.tmp, name)) as tar:
            tar.extractall(self.path("unpacked"))
        source = self.path(os.path.join("unpacked", name[:-len(".tar.gz")]))
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(source), "VERSION")))
        target = self.path("site")
        self.pip("--target", target, source=source)
        self.imports_from(sys.executable, target, env=dict(os.environ, PYTHONPATH=target, PYTHONNOUSERSITE="1"))


class Version(unittest.TestCase):
    def test_one_version_from_the_repositorys_file(self):
        self.assertRegex(VERSION, r"^[0-9]+\.[0-9]+\.[0-9]+")
        self.assertEqual(touchd_build.version(), VERSION)
        self.assertEqual(touchd_client.__version__, VERSION)     # imported from the source tree
        self.assertTrue(touchd_client.__file__.startswith(PYTHON_DIR), touchd_client.__file__)
