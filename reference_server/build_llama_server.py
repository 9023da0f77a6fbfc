"""Build llama.cpp's own ``llama-server`` on CPU, once: the second real engine of the tests.

PyPI has no ``llama-server`` wheel for Linux, but ``llama-cpp-python``'s sdist vendors
the whole llama.cpp source under ``vendor/llama.cpp``. This downloads that sdist (pinned
by version and hash: the only network request), unpacks the llama.cpp part (less its
``models/`` and ``docs/``), configures it with every download off (``LLAMA_USE_PREBUILT_UI``
fetches the web UI from Hugging Face by default; no npm either) and builds the one target
``llama-server``, statically linked, niced, with ``-j 2``.

The binary is kept under ``$HARNESS_CACHE_DIR`` (default ``~/.cache/harness``), outside the
checkout: ``llama-server-<version>/llama-server`` is written last (a rename), so a second
run is a no-op and an interrupted build is redone, never half-used. ``GGML_NATIVE=OFF``
keeps the binary portable to another x86-64 CPU with AVX2 (a cache copied between
machines), at no cost for a 135 M model.

    python -m reference_server.build_llama_server [--cache-dir DIR] [--jobs N]
"""

from __future__ import annotations

import argparse
import fcntl
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from harness.errors import DataMissingError, HarnessError
from reference_server.build_test_model import default_cache_dir

LLAMA_CPP_PYTHON = "0.3.36"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
BINARY = "llama-server"
# The build recipe's version: bump it when the flags change, so an old binary is rebuilt.
BUILD_VERSION = 1
# Parts of vendor/llama.cpp the build never reads (models/ is 75 MB of test vocabularies).
_SKIPPED = ("models", "docs", "media", "examples", "benches", "gguf-py", "tests")
CMAKE_FLAGS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",  # one self-contained binary, copied out of the build tree
    "-DGGML_NATIVE=OFF",  # portable: x86-64 with AVX2/FMA/F16C, not this CPU's extensions
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",  # no npm
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # no web-UI download from Hugging Face
)


def llama_server_dir(cache_dir: Path | None = None) -> Path:
    return (cache_dir or default_cache_dir()) / f"llama-server-{LLAMA_CPP_PYTHON}-b{BUILD_VERSION}"


def llama_server_binary(cache_dir: Path | None = None) -> Path:
    """Where :func:`ensure_llama_server` keeps the binary (built or not)."""
    return llama_server_dir(cache_dir) / BINARY


def ensure_llama_server(cache_dir: Path | None = None, jobs: int = 2) -> Path:
    """Return the cached ``llama-server``, building it first if it is not there."""
    binary = llama_server_binary(cache_dir)
    if binary.is_file():
        return binary
    for tool in ("cmake", "c++"):
        if shutil.which(tool) is None:
            raise DataMissingError(
                f"building llama-server needs {tool}, which is not installed",
                hint="run `make setup-system` as root, or install cmake, g++ and ninja-build",
            )
    binary.parent.mkdir(parents=True, exist_ok=True)
    # Two setups at once: one builds, the other waits and finds the binary.
    with (binary.parent / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.is_file():
            _build(binary, jobs)
    return binary


def _build(binary: Path, jobs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="build-", dir=binary.parent) as tmp:
        work = Path(tmp)
        source = _unpack(_download(work), work)
        build = work / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        _run(["cmake", "-S", str(source), "-B", str(build), *generator, *CMAKE_FLAGS])
        _run(
            [
                "nice",
                "-n",
                "10",
                "cmake",
                "--build",
                str(build),
                "--target",
                BINARY,
                "-j",
                str(jobs),
            ]
        )
        built = build / "bin" / BINARY
        staged = binary.with_name(BINARY + ".new")
        shutil.copy2(built, staged)
        _run([str(staged), "--version"])
        staged.rename(binary)  # atomic: a reader sees no binary or a complete one


def _download(work: Path) -> Path:
    requirements = work / "requirements.txt"
    requirements.write_text(f"llama-cpp-python=={LLAMA_CPP_PYTHON} --hash=sha256:{SDIST_SHA256}\n")
    _run(
        [
            *(sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"),
            *("--require-hashes", "-r", str(requirements), "-d", str(work / "sdist")),
        ]
    )
    (sdist,) = (work / "sdist").glob("*.tar.gz")
    return sdist


def _unpack(sdist: Path, work: Path) -> Path:
    prefix = f"llama_cpp_python-{LLAMA_CPP_PYTHON}/vendor/llama.cpp/"
    with tarfile.open(sdist) as archive:
        members = [
            m
            for m in archive.getmembers()
            if m.name.startswith(prefix) and m.name[len(prefix) :].split("/", 1)[0] not in _SKIPPED
        ]
        if not members:
            raise DataMissingError(f"{sdist.name} holds no {prefix}")
        archive.extractall(work / "src", members=members, filter="data")
    return work / "src" / prefix


def _run(argv: list[str]) -> None:
    print("+", " ".join(argv), flush=True)
    subprocess.run(argv, check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reference_server.build_llama_server",
        description=f"Build (or find cached) llama.cpp's llama-server from llama-cpp-python "
        f"{LLAMA_CPP_PYTHON}'s sdist, on CPU.",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="default: $HARNESS_CACHE_DIR or ~/.cache/harness"
    )
    parser.add_argument("--jobs", type=int, default=2, help="compile jobs (default: 2)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        binary = ensure_llama_server(args.cache_dir, jobs=args.jobs)
    except HarnessError as err:
        print(f"build_llama_server: error: {err.one_line()}", file=sys.stderr)
        return err.exit_code
    except subprocess.CalledProcessError as err:
        print(f"build_llama_server: error: {err.cmd[0]} exited {err.returncode}", file=sys.stderr)
        return 1
    print(f"{binary}  ({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
