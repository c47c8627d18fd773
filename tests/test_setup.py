"""Checks of the project set-up itself: packaging metadata and `make lab`."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml  # PyYAML comes with the notebook extra (jupyterlab -> jupyter_server -> jupyter_events)
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10; pytest depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

# PyPI name -> conda-forge name, where they differ.
PYPI_TO_CONDA = {
    "cupy-cuda12x": "cupy",
    "ray": "ray-core",
}
# Extras whose packages must be listed (uncommented) in environment.yml.
CONDA_EXTRAS = ("notebook", "test", "tensorboard", "fast", "dist", "docs")
# Extras whose packages appear in environment.yml only as a commented-out line.
COMMENTED_EXTRAS = ("gpu",)
# Entries allowed in environment.yml that have no counterpart in the pyproject deps
# (python is compared against requires-python separately).
CONDA_ONLY = {"pip"}
# PyPI packages conda-forge lacks, or packs otherwise (NVRTC: the test finds the wheel's
# library as a Python package): pip installs them with the extras (the `-e .[...]` line).
PIP_ONLY = {"django-static-mathjax", "nvidia-cuda-nvrtc-cu12"}


def _pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def _environment() -> dict:
    with open(ROOT / "environment.yml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def _conda_spec(spec: str) -> tuple[str, SpecifierSet]:
    m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", spec)
    assert m, f"cannot parse conda spec {spec!r}"
    return canonicalize_name(m.group(1)), SpecifierSet(m.group(2).replace(" ", ""))


def _pypi_specs(reqs: list[str]) -> dict[str, SpecifierSet]:
    out = {}
    for r in reqs:
        req = Requirement(r)
        name = canonicalize_name(PYPI_TO_CONDA.get(canonicalize_name(req.name), req.name))
        out[name] = req.specifier
    return out


def test_environment_yml_matches_pyproject():
    project = _pyproject()["project"]
    env = _environment()

    assert env["name"] == "gluonedu"
    assert env["channels"] == ["conda-forge"]

    conda: dict[str, SpecifierSet] = {}
    pip_entries: list[str] = []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip_entries.extend(dep["pip"])
        else:
            name, spec = _conda_spec(dep)
            assert name not in conda, f"{name} listed twice in environment.yml"
            conda[name] = spec

    # Python pin == requires-python.
    assert conda.pop("python") == SpecifierSet(project["requires-python"])

    expected_reqs = list(project["dependencies"])
    for extra in CONDA_EXTRAS:
        expected_reqs += project["optional-dependencies"][extra]
    expected = {n: s for n, s in _pypi_specs(expected_reqs).items() if n not in PIP_ONLY}

    listed = {n: s for n, s in conda.items() if n not in CONDA_ONLY}
    assert set(listed) == set(expected), (
        f"missing from environment.yml: {sorted(set(expected) - set(listed))}; "
        f"not in pyproject.toml: {sorted(set(listed) - set(expected))}"
    )
    for name, spec in expected.items():
        assert listed[name] == spec, f"{name}: environment.yml {listed[name]} != pyproject {spec}"

    # Optional extras appear as commented-out lines with the same pin.
    text = (ROOT / "environment.yml").read_text(encoding="utf-8")
    commented = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\s*#\s*-\s*([A-Za-z0-9_.\-]+[^#]*?)\s*", line)
        if m:
            name, spec = _conda_spec(m.group(1))
            commented[name] = spec
    for extra in COMMENTED_EXTRAS:
        for name, spec in _pypi_specs(project["optional-dependencies"][extra]).items():
            assert commented.get(name) == spec, f"environment.yml lacks '# - {name}{spec}'"

    # The project itself is pip-installed (editable, on a plain path entry: see the test
    # below) with the extras listed above.
    assert pip_entries == [
        f"-e .[{','.join(CONDA_EXTRAS)}] --config-settings editable_mode=compat"]


@pytest.mark.parametrize("folder", ["empty folder", "parent of a clone"])
def test_a_folder_named_gluonedu_in_the_working_directory_does_not_shadow_it(tmp_path, folder):
    # Python run where a folder named gluonedu lies (the folder holding the clone) must
    # still import the installed package, not the folder as an empty namespace package.
    (tmp_path / "gluonedu").mkdir()
    if folder == "parent of a clone":
        (tmp_path / "gluonedu" / "gluonedu").mkdir()
        (tmp_path / "gluonedu" / "gluonedu" / "__init__.py").write_text(
            "raise ImportError('imported the clone in the working directory')\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import gluonedu; print(gluonedu.__file__, gluonedu.gluon.Trainer)"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert str(tmp_path) not in proc.stdout


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop_group(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        # make itself exited; still reap anything left in its group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=10)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(sys.platform == "win32", reason="uses make and POSIX process groups")
def test_make_lab_serves(tmp_path):
    venv = Path(sys.prefix)
    if not (venv / ".installed").exists():
        pytest.skip("not running inside the Makefile's venv (no .installed stamp)")
    if venv.parent != ROOT:
        # `make lab VENV=...` would (re)install this checkout into that environment.
        pytest.skip("the venv %s is not this checkout's own (%s)" % (venv, ROOT / ".venv"))
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")

    port = _free_port()
    token = secrets.token_hex(16)
    env = {
        k: v
        for k, v in os.environ.items()
        # Don't let an outer `make test` leak its flags / jobserver into this make.
        if k not in {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"}
    }
    env.update(
        JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
        JUPYTER_DATA_DIR=str(tmp_path / "data"),
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        JUPYTER_PLATFORM_DIRS="1",
        IPYTHONDIR=str(tmp_path / "ipython"),
        MPLCONFIGDIR=str(tmp_path / "matplotlib"),
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        XDG_CACHE_HOME=str(tmp_path / "xdg-cache"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        # jupyter_lsp probes for language servers with `npm`, which logs to ~/.npm/_logs.
        npm_config_cache=str(tmp_path / "npm-cache"),
        npm_config_update_notifier="false",
        BROWSER="true",  # belt and braces: --no-browser already stops it opening one
    )
    (tmp_path / "home").mkdir()
    # A random token (jupyter_server 2: IdentityProvider.token); exact port, no browser.
    lab_args = f"--no-browser --ServerApp.port_retries=0 --IdentityProvider.token={token}"
    log = tmp_path / "lab.log"
    with open(log, "wb") as logf:
        proc = subprocess.Popen(
            [make, "--no-print-directory", "lab", f"VENV={venv}", f"LAB_PORT={port}", f"LAB_ARGS={lab_args}"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=logf,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # own process group, so we can stop make + jupyter together
        )
    try:
        url = f"http://127.0.0.1:{port}/api/status"
        req = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
        deadline = time.monotonic() + 90
        status = None
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"make lab exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(req, timeout=5) as resp:
                    status = resp.status
                    body = resp.read()
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.5)
        assert status == 200, f"no answer from {url} within 90 s:\n{log.read_text(errors='replace')}"
        assert b"started" in body

        # The token is actually enforced.
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(url, timeout=5)
        assert exc.value.code == 403

        # JupyterLab itself is served from notebooks/.
        lab = urllib.request.Request(
            f"http://127.0.0.1:{port}/lab", headers={"Authorization": f"token {token}"}
        )
        with urllib.request.urlopen(lab, timeout=10) as resp:
            assert resp.status == 200
        contents = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/contents", headers={"Authorization": f"token {token}"}
        )
        with urllib.request.urlopen(contents, timeout=10) as resp:
            names = {item["name"] for item in json.load(resp)["content"]}
        expected = {p.name for p in (ROOT / "notebooks").iterdir() if not p.name.startswith(".")}
        assert expected <= names
    finally:
        _stop_group(proc)
    assert not _group_alive(proc.pid), "make lab left processes behind"
    # Nothing was written to the (fake) home directory.
    assert list((tmp_path / "home").iterdir()) == []
