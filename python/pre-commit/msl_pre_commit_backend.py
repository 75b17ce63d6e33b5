"""The build backend of the repository's root `pyproject.toml`.

pre-commit installs a `language: python` hook by running `pip install .` in the hook's
repository. The root package, `msl-pre-commit`, holds no code: it depends on the
`msl-check` wheel of the same version, whose programs the hooks run. So installing the
hooks needs no Rust toolchain, and this backend needs nothing but the standard library
(no build requirements to download).

The version comes from the Cargo workspace (`[workspace.package] version` in the root
`Cargo.toml`), written as Python writes versions, so a release's hooks ask for that
release's wheel. (A revision between releases carries the last release's version, and
so installs that release's programs; the `-from-source` hooks build the revision itself.)
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "msl-pre-commit"
DIST = "msl_pre_commit"
TAG = "py3-none-any"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pep440(cargo):
    """A Cargo (SemVer) version as Python writes it: 1.2.3, and the pre-releases
    1.2.3-alpha.N, -beta.N, -rc.N as 1.2.3aN, bN, rcN (as maturin writes the wheel's).
    Anything else raises ValueError. xtask/src/wheel.rs converts the same way."""
    m = re.fullmatch(r"(\d+\.\d+\.\d+)(?:-(alpha|beta|rc)\.(\d+))?", cargo)
    if m is None:
        raise ValueError(f"version {cargo}: expected MAJOR.MINOR.PATCH, with -alpha.N, -beta.N or -rc.N")
    release, label, number = m.groups()
    if label is None:
        return release
    return f"{release}{dict(alpha='a', beta='b', rc='rc')[label]}{int(number)}"


def cargo_version(root=_ROOT):
    """The `version` of `[workspace.package]` in `root`/Cargo.toml, as Python writes it."""
    with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^\[workspace\.package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if section is None:
        raise RuntimeError("Cargo.toml has no [workspace.package] table")
    version = re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
    if version is None:
        raise RuntimeError("[workspace.package] in Cargo.toml has no version")
    return pep440(version.group(1))


def metadata(version):
    return (
        "Metadata-Version: 2.4\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        "Summary: The msl pre-commit hooks: installs the msl-check wheel of the same version\n"
        "License-Expression: MIT OR Apache-2.0\n"
        "Requires-Python: >=3.8\n"
        f"Requires-Dist: msl-check=={version}\n"
    )


def _wheel_file():
    return f"Wheel-Version: 1.0\nGenerator: {NAME}\nRoot-Is-Purelib: true\nTag: {TAG}\n"


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def _dist_info(version):
    return f"{DIST}-{version}.dist-info"


# PEP 517 hooks


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = cargo_version()
    info = os.path.join(metadata_directory, _dist_info(version))
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata(version))
    with open(os.path.join(info, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return _dist_info(version)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = cargo_version()
    info = _dist_info(version)
    files = [
        (f"{info}/METADATA", metadata(version).encode()),
        (f"{info}/WHEEL", _wheel_file().encode()),
    ]
    record = "".join(_record_line(path, data) for path, data in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    name = f"{DIST}-{version}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files:
            # a fixed date, so that the same sources give the same wheel
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = 0o644 << 16
            whl.writestr(entry, data)
    return name


# The source distribution: what building the wheel again needs (the backend, the
# pyproject.toml that names it, and Cargo.toml for the version).
_SDIST_FILES = ["pyproject.toml", "Cargo.toml", "python/pre-commit/msl_pre_commit_backend.py"]


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    version = cargo_version()
    base = f"{DIST}-{version}"
    name = f"{base}.tar.gz"

    def add(tar, path, data):
        entry = tarfile.TarInfo(f"{base}/{path}")
        entry.size = len(data)
        entry.mode = 0o644
        entry.mtime = 0
        tar.addfile(entry, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        add(tar, "PKG-INFO", metadata(version).encode())
        for path in _SDIST_FILES:
            with open(os.path.join(_ROOT, path), "rb") as f:
                add(tar, path, f.read())
    return name
