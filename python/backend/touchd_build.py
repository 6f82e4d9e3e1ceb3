"""The PEP 517 build backend of touchd-client (python/pyproject.toml), standard library only.

The package is one directory, touchd_client/ (its .py files), with no dependencies; building
it should not need any either — setuptools would have to come from the network into pip's
isolated build environment (or be installed, with wheel, for --no-build-isolation). This writes
the wheel itself: touchd_client/*.py, touchd_client/_version.py (written here), and the
dist-info (METADATA, WHEEL, RECORD). Also an editable wheel (pip install -e: a .pth naming this
directory) and an sdist.

The version is the one line of the file VERSION at the repository's root (python/../VERSION,
whitespace around it ignored) — the one version of touchd, its C library and this package. An
sdist carries a copy at its own root, which is read first, so that a wheel builds from the
sdist alone. The wheel's touchd_client/_version.py holds it for touchd_client.__version__ (in
the source tree, __init__.py reads VERSION itself). PackagingTests asks version() (debian/rules
builds this package with pybuild, which calls the backend).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = "touchd_client"
NAME = "touchd-client"


def _read(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return f.read()


def _sources():
    """The package's files as (path in the wheel, bytes), sorted: touchd_client/*.py but a
    _version.py, which only the build writes."""
    names = sorted(n for n in os.listdir(os.path.join(HERE, MODULE)) if n.endswith(".py") and n != "_version.py")
    return [(MODULE + "/" + n, _read(os.path.join(MODULE, n))) for n in names]


def _version_file():
    """VERSION at an sdist's root (HERE), else at the repository's root (HERE/..)."""
    for directory in (HERE, os.path.dirname(HERE)):
        path = os.path.join(directory, "VERSION")
        if os.path.isfile(path):
            return path
    raise RuntimeError("no VERSION file in %s or %s" % (HERE, os.path.dirname(HERE)))


def version():
    """The version: VERSION's one line, checked (digits and dots, then letters, digits, dots)."""
    path = _version_file()
    with open(path, encoding="utf-8") as f:
        text = f.read().strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)*([a-z0-9.+]*)", text):
        raise RuntimeError("%s: not a version: %r" % (path, text))
    return text


def _version_module():
    return (MODULE + "/_version.py",
            ('"""Written by the build backend from VERSION."""\n__version__ = "%s"\n' % version()).encode())


def _project():
    """The [project] keys this backend uses, from pyproject.toml (simple `key = "value"` lines)."""
    text = _read("pyproject.toml").decode()
    section = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([a-z-]+) = "([^"]*)"', section, re.M))


def _metadata():
    project = _project()
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: %s\n"
            % (NAME, version(), project.get("description", ""), project.get("requires-python", ">=3"))).encode()


def _dist_info():
    return "%s-%s.dist-info" % (MODULE, version())


def _wheel(directory, files):
    """Write a py3-none-any wheel of files [(archive name, bytes)] plus its dist-info; its name."""
    dist = _dist_info()
    files = files + [(dist + "/METADATA", _metadata()),
                     (dist + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: touchd_build\nRoot-Is-Purelib: true\n"
                                       b"Tag: py3-none-any\n")]
    record = "".join("%s,sha256=%s,%d\n" % (name, base64.urlsafe_b64encode(hashlib.sha256(data).digest())
                                            .rstrip(b"=").decode(), len(data)) for name, data in files)
    files.append((dist + "/RECORD", (record + dist + "/RECORD,,\n").encode()))
    filename = "%s-%s-py3-none-any.whl" % (MODULE, version())
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for name, data in files:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            whl.writestr(info, data, zipfile.ZIP_DEFLATED)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, _sources() + [_version_module()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [(MODULE + ".pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (MODULE, version())
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [("PKG-INFO", _metadata()), ("pyproject.toml", _read("pyproject.toml")),
                           ("VERSION", (version() + "\n").encode()), *_sources(),
                           ("backend/touchd_build.py", _read(os.path.join("backend", "touchd_build.py")))]:
            info = tarfile.TarInfo(base + "/" + name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return filename
