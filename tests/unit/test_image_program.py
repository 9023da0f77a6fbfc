"""Can the container's program run? Exec bits, ``#!`` interpreters and ``env`` lookups
(harness/image/program.py), on literal trees and in-memory layers."""

from __future__ import annotations

import io
import tarfile

import pytest

from harness.image.archive import summarise_layer
from harness.image.fs import DIR, FILE, NOEXEC, NOT_PROGRAM, file_kind, link, merge_tree
from harness.image.program import ProgramCheck, check_program, env_command, parse_shebang
from harness.image.rules import facts_from_config, judge
from harness.profiles import PackageSpec


def script(line: str) -> str:
    return file_kind(0o755, f"#!{line}\n".encode())


def _check(
    tree: dict[str, str], entrypoint: list[str], env: list[str] | None = None
) -> ProgramCheck:
    found = check_program(entrypoint, [], env or [], "/", tree)
    assert found is not None
    return found


def test_file_kind_from_mode_and_first_bytes() -> None:
    assert file_kind(0o644, b"\x7fELF...") == NOEXEC
    assert file_kind(0o755, b"\x7fELF...") == FILE
    assert file_kind(0o700, b"#!/bin/sh -e\nexec serve\n") == "f#!/bin/sh -e"
    assert file_kind(0o755, b"#!/bin/sh\r\n") == "f#!/bin/sh\r"
    assert file_kind(0o755, b"echo hi\n") == NOT_PROGRAM
    assert file_kind(0o755, b"") == NOT_PROGRAM
    assert file_kind(0o001, b"#!" + b"x" * 400) == "f#!" + "x" * 254  # the kernel's 256 bytes


def test_parse_shebang_like_linux() -> None:
    assert parse_shebang("/bin/sh") == ("/bin/sh", None)
    assert parse_shebang(" \t/bin/sh  -e \t") == ("/bin/sh", "-e")
    assert parse_shebang("/usr/bin/env python3 -u") == ("/usr/bin/env", "python3 -u")
    assert parse_shebang("/bin/sh\r") == ("/bin/sh\r", None)  # a CRLF file: \r is kept
    assert parse_shebang("   ") == ("", None)


def test_env_command() -> None:
    assert env_command("python3", "/bin") == ("python3", "/bin")
    assert env_command("python3 -u", "/bin") == ("python3 -u", "/bin")  # one word without -S
    assert env_command("-S python3 -u", "/bin") == ("python3", "/bin")
    assert env_command("-S -u HOME PATH=/opt/bin A=1 python3", "/bin") == ("python3", "/opt/bin")
    assert env_command("-Spython3", "/bin") == ("python3", "/bin")
    assert env_command("-i", "/bin") == (None, "/bin")


def test_a_script_on_scratch_names_its_missing_interpreter() -> None:
    """Issue 27: FROM scratch, ENTRYPOINT a #!/bin/sh script, no /bin/sh in any layer."""
    tree = merge_tree([({"bin/serve": script("/bin/sh")}, [], [])])
    check = _check(tree, ["/bin/serve"])
    assert check.found == "/bin/serve"
    assert check.problem == (
        "ENTRYPOINT runs /bin/serve, but /bin/serve's interpreter /bin/sh (#!/bin/sh) "
        "is not in the image (/bin/sh does not exist)"
    )


def test_interpreter_found_through_symlinks() -> None:
    tree = {
        "bin": link("usr/bin"),
        "usr": DIR,
        "usr/bin": DIR,
        "usr/bin/sh": link("/usr/bin/busybox"),
        "usr/bin/busybox": FILE,
        "app": DIR,
        "app/serve": script("/bin/sh -e"),
    }
    check = _check(tree, ["/app/serve"])
    assert check.problem == ""
    assert check.interpreters == ("/bin/sh → /usr/bin/busybox",)


ENV_TREE = {
    "usr/bin/env": FILE,
    "opt/conda/bin/python3": link("python3.11"),
    "opt/conda/bin/python3.11": FILE,
    "app/serve.py": script("/usr/bin/env python3"),
    "app/serve_u.py": script("/usr/bin/env python3 -u"),
    "app/serve_s.py": script("/usr/bin/env -S python3 -u"),
}
CONDA = ["PATH=/opt/conda/bin:/usr/bin"]


def test_env_looks_the_command_up_on_the_image_path() -> None:
    tree = merge_tree([(ENV_TREE, [], [])])
    ok = _check(tree, ["/app/serve.py"], CONDA)
    assert ok.problem == ""
    assert ok.interpreters == ("/usr/bin/env", "python3 → /opt/conda/bin/python3.11")
    assert _check(tree, ["/app/serve_s.py"], CONDA).problem == ""
    # Docker's default PATH has no /opt/conda/bin
    missing = _check(tree, ["/app/serve.py"])
    assert missing.problem.startswith(
        "ENTRYPOINT runs /app/serve.py, but /app/serve.py runs `env python3` "
        "(#!/usr/bin/env python3), and python3 is not in the image (not in PATH (/usr/local/sbin,"
    )
    one_word = _check(tree, ["/app/serve_u.py"], CONDA)
    assert "python3 -u is not in the image" in one_word.problem
    assert one_word.problem.endswith(
        "Linux passes 'python3 -u' to env as one word: `#!/usr/bin/env -S python3 -u`"
    )


def test_env_itself_missing_is_named() -> None:
    tree = merge_tree([({"app/serve.py": script("/usr/bin/env python3")}, [], [])])
    assert _check(tree, ["/app/serve.py"]).problem == (
        "ENTRYPOINT runs /app/serve.py, but /app/serve.py's interpreter /usr/bin/env "
        "(#!/usr/bin/env python3) is not in the image (/usr does not exist)"
    )


def test_exec_bits_formats_crlf_and_empty_lines() -> None:
    tree = merge_tree(
        [
            (
                {
                    "bin/sh": FILE,
                    "noexec": NOEXEC,
                    "text": NOT_PROGRAM,
                    "crlf": script("/bin/sh\r"),
                    "empty": script(""),
                    "badsh": script("/bin/text"),
                    "bin/text": NOEXEC,
                },
                [],
                [],
            )
        ]
    )
    assert _check(tree, ["/noexec"]).problem == (
        "ENTRYPOINT runs /noexec, but /noexec is not executable (no exec bit: `chmod +x` it "
        "in the image)"
    )
    assert _check(tree, ["/text"]).problem.endswith(
        "/text is neither an ELF binary nor a #! script (exec format error)"
    )
    crlf = _check(tree, ["/crlf"]).problem
    assert "interpreter /bin/sh (#!/bin/sh) is not in the image (/bin/sh\r does not exist)" in crlf
    assert crlf.endswith("the line ends in a carriage return: save /crlf with LF line ends")
    assert _check(tree, ["/empty"]).problem.endswith("/empty starts with an empty #! line")
    assert _check(tree, ["/badsh"]).problem.endswith(
        "/bin/text is not executable (no exec bit: `chmod +x` it in the image)"
    )


def test_nested_scripts_and_loops() -> None:
    tree = {
        "bin": DIR,
        "bin/busybox": FILE,
        "bin/wrap": script("/bin/busybox sh"),
        "app": DIR,
        "app/serve": script("/bin/wrap"),
        "app/loop": script("/app/loop"),
        "app/rel": script("bin/wrap"),  # relative: from the working directory
    }
    assert _check(tree, ["/app/serve"]).interpreters == ("/bin/wrap", "/bin/busybox")
    assert _check(tree, ["/app/loop"]).problem.endswith(
        "/app/loop: more than 4 nested #! interpreters"
    )
    rel = check_program(["/app/rel"], [], [], "/", tree)
    assert rel is not None and rel.problem == "" and rel.interpreters[0] == "bin/wrap → /bin/wrap"
    elsewhere = check_program(["/app/rel"], [], [], "/app", tree)
    assert elsewhere is not None and "(/app/bin does not exist)" in elsewhere.problem


def test_bare_names_on_path_skip_files_without_exec_bits() -> None:
    tree = merge_tree([({"a/serve": NOEXEC, "b/serve": FILE, "c/only": NOEXEC}, [], [])])
    found = check_program([], ["serve"], ["PATH=/a:/b"], "/", tree)
    assert found is not None and found.found == "/b/serve" and found.problem == ""
    only = check_program([], ["only"], ["PATH=/c"], "/", tree)
    assert only is not None and only.problem == (
        "CMD runs only, but the image has no such program (not in PATH (/c); "
        "/c/only has no exec bit)"
    )
    relative = check_program([], ["serve"], ["PATH=b"], "/", tree)  # a relative PATH entry
    assert relative is not None and relative.found == "/b/serve"


def _layer(members: list[tuple[str, int, bytes, str]]) -> bytes:
    """(path, mode, bytes, hard link target or "") → a layer tar."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path, mode, data, target in members:
            info = tarfile.TarInfo(path)
            info.mode = mode
            if target:
                info.type, info.linkname = tarfile.LNKTYPE, target
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.mark.parametrize("weights_mode", [0o644, 0o755])
def test_layer_reads_first_bytes_of_executables_only(weights_mode: int) -> None:
    from tests.fixtures.podman import safetensors_bytes

    layer = summarise_layer(
        io.BytesIO(
            _layer(
                [
                    ("app/serve", 0o755, b"#!/bin/sh\nexec x\n", ""),
                    ("app/again", 0o755, b"", "app/serve"),
                    ("app/notes", 0o644, b"#!/bin/sh\n", ""),
                    (
                        "opt/ml/model/m.safetensors",
                        weights_mode,
                        safetensors_bytes({"w": [4, 4]}),
                        "",
                    ),
                ]
            )
        ),
        "/opt/ml/model",
    )
    assert layer.tree["app/serve"] == layer.tree["app/again"] == "f#!/bin/sh"
    assert layer.tree["app/notes"] == NOEXEC
    # an executable weights file: its first bytes read once, the header still counted
    assert layer.files["opt/ml/model/m.safetensors"].parameters == 16


def test_rule_detail_names_the_chain_or_the_missing_interpreter() -> None:
    spec = PackageSpec()

    def rule(tree: dict[str, str]) -> tuple[str, str]:
        facts = facts_from_config(
            filename="image.tar.gz",
            compressed_bytes=1,
            tags=[],
            config={"config": {"Entrypoint": ["/bin/serve"]}},
            model_files={},
            tree=tree,
        )
        (r,) = [r for r in judge(facts, spec) if r.rule == "entrypoint_exists"]
        return r.status, r.detail

    serve = {"bin/serve": script("/bin/sh")}
    assert rule(merge_tree([(serve, [], [])]))[0] == "fail"
    with_sh = merge_tree(
        [(serve, [], []), ({"bin/sh": link("busybox"), "bin/busybox": FILE}, [], [])]
    )
    assert rule(with_sh) == ("pass", "/bin/serve is in the image, run by /bin/sh → /bin/busybox")
