"""The build backend of the repository's root `pyproject.toml`.

pre-commit installs a `language: python` hook by running `pip install .` in the hook's
repository. The root package, `msl-pre-commit`, holds no code: it depends on the
`msl-check` wheel of the same version, whose programs the hooks run. So installing the
hooks needs no Rust toolchain, and this backend needs nothing but the standard library
(no build requirements to download).

The version comes from the Cargo workspace (`[workspace.package] version` in the root
`Cargo.toml`), so the hooks always ask for the wheel built from the same sources.
"""

import base64
import hashlib
import os
import re
import zipfile

NAME = "msl-pre-commit"
DIST = "msl_pre_commit"
TAG = "py3-none-any"
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cargo_version(root=_ROOT):
    """The `version` of `[workspace.package]` in `root`/Cargo.toml."""
    with open(os.path.join(root, "Cargo.toml"), encoding="utf-8") as f:
        text = f.read()
    section = re.search(r"^\[workspace\.package\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if section is None:
        raise RuntimeError("Cargo.toml has no [workspace.package] table")
    version = re.search(r'^version\s*=\s*"([^"]+)"', section.group(1), re.M)
    if version is None:
        raise RuntimeError("[workspace.package] in Cargo.toml has no version")
    return version.group(1)


def metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        "Summary: The msl pre-commit hooks: installs the msl-check wheel of the same version\n"
        "License: MIT OR Apache-2.0\n"
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
