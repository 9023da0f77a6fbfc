"""Recipes → exact command lines; the launcher's CLI without starting vLLM."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.errors import UnreachableError
from reference_server.__main__ import main
from reference_server.launch import ServerProcess, free_port, tail
from reference_server.recipes import (
    A10G_INT4,
    CHAT_TEMPLATE,
    CPU,
    LaunchCommand,
    Speculative,
    command,
    get_recipe,
)

COMMON = [
    "-m",
    "vllm.entrypoints.openai.api_server",
    "--model",
    "/m",
    "--served-model-name",
    "Qwen/Qwen3.5-4B",
    "reference",
]


def test_cpu_recipe_command_line_and_env() -> None:
    cmd = command(CPU, "/m", port=9000, python="py")
    assert list(cmd.argv) == [
        "py",
        *COMMON,
        "--host",
        "127.0.0.1",
        "--port",
        "9000",
        "--chat-template",
        str(CHAT_TEMPLATE),
        "--middleware",
        "reference_server.thinking.ThinkingMiddleware",
        "--dtype",
        "float32",
        "--max-model-len",
        "8704",
        "--enforce-eager",
    ]
    assert cmd.env == {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1",
        "VLLM_CPU_KVCACHE_SPACE": "2",
        "VLLM_CPU_OMP_THREADS_BIND": "auto",
        "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    }


def test_a10g_int4_recipe_command_line() -> None:
    cmd = command(A10G_INT4, python="py")  # model defaults to the container's /opt/ml/model
    assert list(cmd.argv[cmd.argv.index("--dtype") :]) == [
        "--dtype",
        "float16",
        "--max-model-len",
        "14336",
        "--quantization",
        "gptq_marlin",
        "--enable-prefix-caching",
        "--speculative-config",
        '{"method":"ngram","num_speculative_tokens":4,"prompt_lookup_min":2,"prompt_lookup_max":5}',
        "--cudagraph-capture-sizes",
        *"1 2 4 5 8 10 15 20 25 30 35 40".split(),
        "--max-num-seqs",
        "8",
        "--max-num-batched-tokens",
        "8448",
        "--gpu-memory-utilization",
        "0.9",
        "--mamba-cache-dtype",
        "float16",
        "--mamba-ssm-cache-dtype",
        "float32",
        "--disable-uvicorn-access-log",
    ]
    assert cmd.argv[cmd.argv.index("--model") + 1] == "/opt/ml/model"
    assert cmd.argv[cmd.argv.index("--host") + 1] == "0.0.0.0"
    assert cmd.argv[cmd.argv.index("--port") + 1] == "8080"
    assert cmd.env == {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }


def test_a10g_limits_fit_the_contract() -> None:
    # long bucket 8192 + 256, GPQA thinking budget 12,288 + a prompt
    assert A10G_INT4.max_model_len >= 8192 + 256
    assert A10G_INT4.max_model_len >= 12288 + 1024
    spec = A10G_INT4.speculative
    assert spec is not None
    step = 1 + spec.num_speculative_tokens
    sizes = set(A10G_INT4.cudagraph_capture_sizes)
    # every decode shape of 1..max_num_seqs sequences has its own graph
    assert {n * step for n in range(1, (A10G_INT4.max_num_seqs or 0) + 1)} <= sizes


def test_mtp_speculative_json_and_shell_quoting() -> None:
    assert Speculative("mtp", 2).to_json() == '{"method":"mtp","num_speculative_tokens":2}'
    cmd = LaunchCommand(argv=("py", "-m", "x", "--a", '{"k":1}'), env={"B": "2", "A": "x y"})
    assert cmd.shell() == "A='x y' B=2 py -m x --a '{\"k\":1}'"


def test_unknown_recipe_and_missing_model() -> None:
    with pytest.raises(KeyError, match="known: a10g-int4, cpu"):
        get_recipe("tpu")
    with pytest.raises(ValueError, match="needs a model folder"):
        command(CPU)


def test_print_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert (
        main(["--recipe", "cpu", "--model", str(tmp_path), "--port", "8123", "--print-command"])
        == 0
    )
    line = capsys.readouterr().out.strip()
    assert line.startswith("HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 ")
    assert f"--model {tmp_path} " in line
    assert "--port 8123 " in line
    assert line.endswith("--enforce-eager")


def test_print_command_json_and_extra_flags_go_to_vllm(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--recipe", "a10g-int4", "--print-command", "--json", "--max-num-seqs", "4"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["argv"][-2:] == ["--max-num-seqs", "4"]
    assert data["env"]["HF_HUB_OFFLINE"] == "1"


def test_cpu_print_command_does_not_build_the_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    assert main(["--recipe", "cpu", "--print-command"]) == 0
    assert f"--model {tmp_path}/models/SmolLM2-135M-Instruct-bf16 " in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--recipe", "cpu", "--model", "/nonexistent/model"], "is not a folder"),
        (["--recipe", "cpu", "--model", ".", "--port", "70000"], "is not a TCP port"),
    ],
)
def test_bad_launcher_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


def test_unknown_recipe_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--recipe", "tpu"])
    assert info.value.code == 2


def test_free_port_and_tail(tmp_path: Path) -> None:
    assert 0 < free_port() < 65536
    log = tmp_path / "log"
    log.write_text("".join(f"line {i}\n" for i in range(50)))
    assert tail(log, 2) == "line 48\nline 49"
    assert tail(tmp_path / "missing") == ""


def _fake_server(tmp_path: Path, code: str) -> ServerProcess:
    log = tmp_path / "server.log"
    log_file = log.open("ab")
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=log_file,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return ServerProcess(
        process=proc,
        url=f"http://127.0.0.1:{free_port()}",
        port=0,
        model_dir=tmp_path,
        log_path=log,
        started_at=time.monotonic(),
        _log_file=log_file,
    )


@pytest.mark.timeout(30)
def test_wait_ready_reports_a_dead_process_with_its_log(tmp_path: Path) -> None:
    server = _fake_server(tmp_path, "import sys; print('boom: no config.json'); sys.exit(3)")
    with server, pytest.raises(UnreachableError, match=r"exited with code 3(.|\n)*boom: no config"):
        server.wait_ready(timeout_s=20, poll_s=0.05)


@pytest.mark.timeout(30)
def test_wait_ready_times_out_and_stop_kills_the_group(tmp_path: Path) -> None:
    # a leader that ignores SIGTERM, with a child in its group: both must end
    # it says "armed" once SIGTERM is ignored and its child runs: on a loaded machine its
    # start can outlast the readiness timeout, and a SIGTERM sent earlier would end it
    code = (
        "import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        "print('armed', flush=True); time.sleep(60)"
    )
    server = _fake_server(tmp_path, code)
    with pytest.raises(UnreachableError, match="not ready after"):
        server.wait_ready(timeout_s=0.3, poll_s=0.05)
    for _ in range(300):
        if b"armed" in server.log_path.read_bytes():
            break
        time.sleep(0.1)
    started = time.monotonic()
    assert server.stop(timeout_s=1.0) == -9
    assert time.monotonic() - started < 10
    # the orphaned child is SIGKILLed too; give its new parent a moment to reap it
    for _ in range(50):
        alive = subprocess.run(["pgrep", "-g", str(server.pid)], capture_output=True, check=False)
        if alive.stdout == b"":
            break
        time.sleep(0.1)
    assert alive.stdout == b""
