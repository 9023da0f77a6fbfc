#!/usr/bin/env bash
# The CUDA proof of `harness vlm run`'s runner (issue 17, point 7), for a lent GPU
# machine without internet or `datasets`: run from a folder G holding copies of
# harness/vlm/runner_script.py, reference_server/{__init__,build_test_vlm}.py,
# tests/fixtures/{__init__,tiny_vlm,vlm_replica}.py, tests/fixtures/vlm_wrapper/,
# bench/vlm_gpu_shape2b.py and qwen.tiktoken. Writes records and logs under $OUT;
# `harness vlm import` (docs/vlm.md) turns the records into vlm.json + result.json.
#   [ORDER=replica-first] [SKIP_2B=1] bash bench/vlm_gpu.sh G [N_SAMPLES]
set -u
G=$(cd "$1" && pwd); N=${2:-12}
export PYTHONPATH=$G:${PYTHONPATH:-} HARNESS_REPO_ROOT=$G PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
cd "$G"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
python3 -c "import torch, transformers, datasets, pyarrow; print(torch.__version__, transformers.__version__, datasets.__version__, pyarrow.__version__)"
wall() { python3 -c "print('$1 wall', round($(date +%s.%N) - $s, 2), 's')"; }
t0=$(date +%s.%N)
python3 -m reference_server.build_test_vlm --cache-dir /tmp/cache --ranks qwen.tiktoken
# The dataset is written where `datasets` hashes cleanly (G/ds, made beforehand with
# tests/fixtures/tiny_vlm.write_textvqa(..., sizes=TEXTVQA_SIZES)); else written here.
DS=$G/ds
[ -d "$DS" ] || { DS=/tmp/ds; python3 -c "
from pathlib import Path
from tests.fixtures.tiny_vlm import write_textvqa, TEXTVQA_SIZES
write_textvqa(Path('/tmp/ds'), $N, sizes=TEXTVQA_SIZES)" 2>&1 | tail -1; }
M=/tmp/cache/models/tiny-qwen3-vl
W=$G/tests/fixtures/vlm_wrapper
run_tiny_runner() {
echo "== tiny: runner, official settings, $N samples"
s=$(date +%s.%N); python3 harness/vlm/runner_script.py --wrapper-dir $W --model-path $M \
  --dataset-path $DS --records $OUT/tiny-records.jsonl --num-samples $N > $OUT/tiny-runner.log 2>&1
wall "tiny runner"; tail -2 $OUT/tiny-runner.log
}
run_tiny_replica() {
echo "== tiny: replica of the official procedure, same samples"
s=$(date +%s.%N); python3 tests/fixtures/vlm_replica.py $W $M $DS $OUT/tiny-replica.json \
  --num-samples $N > $OUT/tiny-replica.log 2>&1
wall "tiny replica"; tail -2 $OUT/tiny-replica.log
}
# ORDER=replica-first swaps the two (the first process on a fresh machine pays cold caches)
if [ "${ORDER:-runner-first}" = replica-first ]; then run_tiny_replica; run_tiny_runner
else run_tiny_runner; run_tiny_replica; fi
[ -n "${SKIP_2B:-}" ] || {
echo "== 2B shape (random weights): build, then runner (NON-OFFICIAL: 3 warm-up, 128-token answers)"
python3 bench/vlm_gpu_shape2b.py /tmp/shape2b --ranks qwen.tiktoken 2>&1 | tail -1
s=$(date +%s.%N); python3 harness/vlm/runner_script.py --wrapper-dir $W \
  --model-path /tmp/shape2b --dataset-path $DS --records $OUT/shape2b-records.jsonl \
  --num-samples 6 --warmup-samples 3 --answer-tokens 128 > $OUT/shape2b-runner.log 2>&1
wall "shape2b runner"; tail -2 $OUT/shape2b-runner.log
}
python3 - <<'PY'
import json, os
for name in ("tiny", "shape2b"):
    p = os.path.join(os.environ["OUT"], f"{name}-records.jsonl")
    if not os.path.exists(p):
        continue
    recs = [json.loads(l) for l in open(p)]
    st = next(r for r in recs if r["type"] == "start")
    wu = [round(r.get("ms") or -1, 1) for r in recs if r["type"] == "warmup"]
    ss = [r for r in recs if r["type"] == "sample" and r.get("counted")]
    if not ss:
        print(name, "no counted samples"); continue
    f = lambda k: [r[k] for r in ss if r.get(k) is not None]
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    print(f"{name}: gpu={st['system_info'].get('gpu_name')} load={st['model_load_s']:.1f}s warmup_ms={wu}")
    print(f"  ttft wall mean {mean(f('ttft_ms')):.2f} ms [{min(f('ttft_ms')):.2f}..{max(f('ttft_ms')):.2f}], events mean {mean(f('ttft_event_ms')):.2f} ms")
    print(f"  max |wall-event| ttft {max(abs(r['ttft_ms']-r['ttft_event_ms']) for r in ss):.3f} ms; tok/s mean {mean(f('tok_s')):.1f}; 128-call ms mean {mean(f('throughput_ms')):.1f} (events {mean(f('throughput_event_ms')):.1f})")
    print(f"  visual tokens {sorted(set(f('visual_tokens')))}; input tokens {sorted(set(f('input_tokens')))}; processor ms mean {mean(f('processor_ms')):.1f}")
PY
s=$t0; wall total
