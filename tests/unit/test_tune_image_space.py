"""SPACE.toml's image candidates: ``[serve] image`` with ``env`` and ``args`` templates; the
launch line, the Dockerfile that bakes a candidate, and the keys that go with one way only."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from harness.tune.launch import plan_launch
from harness.tune.space import parse_space
from harness.tune.space.template import dockerfile

IMAGE = """
[serve]
image = "team/q:v1"
env = { MAX_SEQS = "{max_num_seqs}", PORT = "{port}" }
args = "--max-num-seqs {max_num_seqs} {prefix_caching}"
[params]
max_num_seqs = [4, 8]
prefix_caching = ["--enable-prefix-caching", ""]
[baseline]
max_num_seqs = 8
prefix_caching = ""
"""


def test_image_launch_fills_env_and_args_with_the_profiles_port() -> None:
    space = parse_space(IMAGE)
    how = plan_launch(space.serve, {"max_num_seqs": 4, "prefix_caching": ""}, 8080)
    assert how.env == {"MAX_SEQS": "4", "PORT": "8080"}
    assert how.argv == ["--max-num-seqs", "4"]  # an empty value leaves no argument
    assert how.port == 8080 and how.url == ""  # reached at the container's address
    assert how.line == (
        "docker run --rm -p 8080:8080 -e MAX_SEQS=4 -e PORT=8080 team/q:v1 --max-num-seqs 4"
    )
    meta = how.meta()
    assert meta["image"] == "team/q:v1" and meta["args"] == ["--max-num-seqs", "4"]


def test_command_launch_is_unchanged() -> None:
    space = parse_space(
        IMAGE.replace('image = "team/q:v1"', 'command = "srv --port {port}"').replace(
            'args = "--max-num-seqs {max_num_seqs} {prefix_caching}"\n', ""
        )
    )
    how = plan_launch(space.serve, {"max_num_seqs": 4, "prefix_caching": ""}, 8080)
    assert how.argv == ["srv", "--port", str(how.port)]  # a free port of this machine
    assert how.url == f"http://127.0.0.1:{how.port}"
    assert "image" not in how.meta()


def test_dockerfile_bakes_env_and_args() -> None:
    text = dockerfile("team/q:v1", {"A": "x y", "B": '"q"'}, ["--n", "4"])
    assert text == 'FROM team/q:v1\nENV A="x y"\nENV B="\\"q\\""\nCMD ["--n", "4"]\n'
    assert dockerfile("team/q:v1", {}, []) == "FROM team/q:v1\n"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (IMAGE.replace('image = "team/q:v1"', 'image = "team/q:v1"\ncommand = "x"'),
         "serve: give command or image, not both"),
        (IMAGE.replace('image = "team/q:v1"', 'command = "srv"'), "serve: args goes with image"),
        (IMAGE.replace('image = "team/q:v1"', 'image = "team/q:v1"\nurl = "http://h:{port}"'),
         "serve: url goes with command"),
    ],
)  # fmt: skip
def test_image_keys_are_checked(text: str, says: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_space(text)
    assert f"SPACE.toml: {says}" in err.value.message


def test_unknown_placeholder_in_args_is_named() -> None:
    """When the file is read, before any candidate."""
    with pytest.raises(ConfigError, match=r"serve.args: unknown placeholder \{prefix\}"):
        parse_space(IMAGE.replace("{prefix_caching}", "{prefix}"))


def test_candidates_get_gate_images_container_options() -> None:
    """The same options gate --image creates its container with, only the label differs."""
    from harness.image.run import OFFLINE_NETWORK, create_options

    gate = create_options(port=8080)
    tune = create_options(port=8080, label="tune")
    assert gate == {"labels": {"harness": "gate"}, "network": OFFLINE_NETWORK}
    assert tune == {**gate, "labels": {"harness": "tune"}}
