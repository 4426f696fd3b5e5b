"""A PEP 517 build backend for the hydae package, standard library only:
a wheel is a zip of the package's files and a .dist-info directory (the
"Binary distribution format" specification, PEP 427 and PyPA's "Core
metadata specifications"). It builds wheels (and editable wheels, PEP 660,
a .pth file naming python/) and nothing else: pip needs no network and no
setuptools to install ./python."""
import base64
import hashlib
import os
import zipfile

NAME = "hydae"
VERSION = "0.1.0"
TAG = "py3-none-any"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
DIST_INFO = "%s-%s.dist-info" % (NAME, VERSION)

METADATA = """Metadata-Version: 2.1
Name: hydae
Version: %s
Summary: Simulation of hybrid DAE systems: Python interface to libhydae
Requires-Python: >=3.8
Requires-Dist: numpy
""" % VERSION

WHEEL = """Wheel-Version: 1.0
Generator: hydae_backend
Root-Is-Purelib: true
Tag: %s
""" % TAG


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def _package_files():
    """(path in the wheel, path on disk) of every .py file of hydae/."""
    root = os.path.join(HERE, NAME)
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, HERE).replace(os.sep, "/"), path


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _write_wheel(directory, contents):
    """contents: (arcname, bytes) of the payload; returns the wheel's name."""
    filename = "%s-%s-%s.whl" % (NAME, VERSION, TAG)
    contents = list(contents) + [(DIST_INFO + "/METADATA", METADATA.encode()),
                                 (DIST_INFO + "/WHEEL", WHEEL.encode())]
    record = [_record_line(arcname, data) for arcname, data in contents]
    record.append(DIST_INFO + "/RECORD,,")
    contents.append((DIST_INFO + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        for arcname, data in contents:
            whl.writestr(arcname, data)
    return filename


def _metadata_dir(directory):
    path = os.path.join(directory, DIST_INFO)
    os.makedirs(path, exist_ok=True)
    for name, text in (("METADATA", METADATA), ("WHEEL", WHEEL)):
        with open(os.path.join(path, name), "w") as f:
            f.write(text)
    return DIST_INFO


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _metadata_dir(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    contents = []
    for arcname, path in _package_files():
        with open(path, "rb") as f:
            contents.append((arcname, f.read()))
    return _write_wheel(wheel_directory, contents)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [("hydae_editable.pth", (HERE + "\n").encode())])
