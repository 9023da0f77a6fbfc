"""The merged file tree and the entrypoint lookup (harness/image/fs.py), with literal trees."""

from __future__ import annotations

import io

from harness.image.archive import summarise_layer
from harness.image.fs import DIR, FILE, NOEXEC, link, merge_tree, resolve
from harness.image.program import check_program
from harness.image.rules import facts_from_config, judge
from harness.profiles import PackageSpec
from tests.fixtures.podman import PROGRAM_STUB, tar_of

# a merged-/usr distribution: /bin is a symlink, sh and python are links too
BASE = {
    "bin": link("usr/bin"),
    "usr/bin/sh": link("dash"),
    "usr/bin/dash": FILE,
    "usr/bin/python3": link("/usr/bin/python3.11"),
    "usr/bin/python3.11": FILE,
    "app/run.sh": FILE,
    "loop": link("loop"),
    "up": link("../../usr/bin/dash"),
}


def _tree(*layers: tuple[dict[str, str], list[str], list[str]]) -> dict[str, str]:
    return merge_tree([(BASE, [], []), *layers])


def test_merge_applies_whiteouts_and_opaque_dirs_and_implies_parents() -> None:
    tree = _tree(({"opt/x/y": FILE}, ["app/run.sh"], []), ({"usr/bin/new": FILE}, [], ["usr/bin"]))
    assert "app/run.sh" not in tree and tree["app"] == DIR  # implied by the lower layer's file
    assert tree["opt"] == tree["opt/x"] == DIR and tree["opt/x/y"] == FILE
    assert [p for p in tree if p.startswith("usr/bin/")] == ["usr/bin/new"]  # opaque: lower gone
    assert merge_tree([]) == {}


def test_resolve_follows_links_in_every_component() -> None:
    tree = _tree()
    assert resolve("/bin/sh", tree) == ("/usr/bin/dash", "")
    assert resolve("/bin/python3", tree) == ("/usr/bin/python3.11", "")
    assert resolve("/up", tree) == ("/usr/bin/dash", "")  # `..` above / stays at /
    assert resolve("/usr/./bin/../bin/dash", tree) == ("/usr/bin/dash", "")
    assert resolve("/loop", tree) == (None, "too many symlinks at /loop")
    assert resolve("/serve", tree) == (None, "/serve does not exist")
    assert resolve("/bin/sh/x", tree) == (None, "/usr/bin/dash is not a directory")


def test_check_program_entrypoint_cmd_path_workdir() -> None:
    tree = _tree()
    ok = check_program(["/bin/sh", "-c", "serve"], ["ignored"], [], "/", tree)
    assert ok is not None and ok.found == "/usr/bin/dash" and ok.problem == ""
    assert check_program([], [], [], "/", tree) is None
    by_path = check_program([], ["python3", "-m", "x"], [], "/", tree)
    assert by_path is not None and by_path.found == "/usr/bin/python3.11"
    relative = check_program(["./run.sh"], [], [], "/app", tree)
    assert relative is not None and relative.found == "/app/run.sh"
    own_path = check_program([], ["run.sh"], ["PATH=/app"], "/", tree)
    assert own_path is not None and own_path.found == "/app/run.sh"
    missing = check_program([], ["run.sh"], ["PATH=/usr/bin:/bin"], "/", tree)
    assert missing is not None and missing.problem == (
        "CMD runs run.sh, but the image has no such program (not in PATH (/usr/bin, /bin))"
    )
    folder = check_program(["/usr"], [], [], "/", tree)
    assert folder is not None and folder.problem.endswith("(/usr is a directory)")


def test_layer_tree_and_rule() -> None:
    layer = summarise_layer(
        io.BytesIO(tar_of({"/bin/serve": PROGRAM_STUB, "/opt/ml/model/config.json": b"{}"})),
        "/opt/ml/model",
    )
    gone = summarise_layer(io.BytesIO(tar_of({"/bin/.wh.serve": b""})), "/opt/ml/model")
    assert layer.tree == {"bin/serve": FILE, "opt/ml/model/config.json": NOEXEC}
    assert gone.tree == {} and gone.deleted == ["bin/serve"]
    spec = PackageSpec()
    config = {"config": {"Entrypoint": ["/bin/serve"]}}

    def rule(layers: list[object]) -> tuple[str, str]:
        tree = merge_tree((x.tree, x.deleted, x.opaque_all) for x in layers)  # type: ignore[attr-defined]
        facts = facts_from_config(
            filename="image.tar.gz",
            compressed_bytes=1,
            tags=[],
            config=config,
            model_files={},
            tree=tree,
        )
        (r,) = [r for r in judge(facts, spec) if r.rule == "entrypoint_exists"]
        return r.status, r.detail

    assert rule([layer]) == ("pass", "/bin/serve is in the image")
    assert rule([layer, gone]) == (
        "fail",
        "ENTRYPOINT runs /bin/serve, but the image has no such program (/bin/serve does not exist)",
    )
    # facts from literals (no tree): the rule is not judged
    facts = facts_from_config(
        filename="image.tar.gz", compressed_bytes=1, tags=[], config=config, model_files={}
    )
    assert "entrypoint_exists" not in [r.rule for r in judge(facts, spec)]
