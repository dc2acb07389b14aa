#!/usr/bin/env bash
# make_seeds.sh BUILD_DIR OUT_DIR
# Writes the seed recordings of fuzz/recording/corpus with the project's own
# `gpuwhy record`, driven by the fake NVML and fake CUPTI libraries of the
# tests (tests/fake_nvml, tests/fake_cupti): a two-GPU sampled run with a
# process list, a MIG and NVLink run, and a CUPTI trace of two steps of the
# trace tests' `sync` scenario, killed by SIGKILL (`record --trace`,
# `trace_driver sigkill 2`). Never copies of shared traces.
set -euo pipefail
B="$(cd "$1" && pwd)"
mkdir -p "$2"
OUT="$(cd "$2" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
cat > two.txt <<'SCEN'
devices 2
name 0 "NVIDIA H100 80GB HBM3"
metric 0 gpu_util square 0 100 400 0.5
metric 0 sm_active constant 30
metric 0 tensor_active constant 12
metric 0 power constant 350000
name 1 "NVIDIA A10"
process 0 pid 4194342 name a mem 111 util 10
SCEN
cat > mig.txt <<'SCEN'
devices 2
name 0 "NVIDIA A100-SXM4-80GB"
gpm 0 0
nvlinks 0 4
metric 0 nvlink_tx_kibps constant 100000
metric 0 nvlink_rx_kibps constant 25000
name 1 "NVIDIA H100 80GB HBM3"
mig 1 1
mig_instance 1 1 0 20000000000 5000000000 40
SCEN
nvml() {
  env GPUWHY_NVML_LIBRARY="$B/tests/fake_nvml/lib/libnvidia-ml.so.1" \
    GPUWHY_FAKE_NVML_SCENARIO="$1" CUDA_VISIBLE_DEVICES= \
    GPUWHY_DCGM_LIBRARY=/nonexistent/libdcgm.so.4 "${@:2}"
}
nvml two.txt "$B/src/cli/gpuwhy" record -o "$OUT/two_gpus.gwrec" --interval 100 --no-report \
  -- sh -c 'sleep 0.35; exit 3' || true
nvml mig.txt "$B/src/cli/gpuwhy" record -o "$OUT/mig_nvlink.gwrec" --interval 200 --no-report \
  -- sleep 1.1
env GPUWHY_CUPTI_LIBRARY="$B/tests/fake_cupti/lib/libcupti.so" \
  GPUWHY_INJECT_LIBRARY="$B/src/cli/libgpuwhy_inject.so" \
  GPUWHY_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUWHY_DCGM_LIBRARY=/nonexistent/libdcgm.so.4 \
  "$B/src/cli/gpuwhy" record --trace --no-dcgm --no-report -o "$OUT/cupti_trace.gwrec" \
  -- "$B/tests/trace/trace_driver" sigkill 2 || true
ls -l "$OUT"
