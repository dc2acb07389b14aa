#!/usr/bin/env bash
# make_seeds.sh: writes the seed corpus (corpus/) of xplane_importer_fuzzer
# (regress_* files there are inputs the fuzzer found, kept as regressions)
# from the text protos below with Debian's protoc (`protoc --encode`) and the
# vendored schema. Written here, never copied from shared traces.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SCHEMA="$HERE/../../third_party/xplane"
OUT="$HERE/corpus"
mkdir -p "$OUT"
enc() { protoc --encode=tensorflow.profiler.XSpace -I"$SCHEMA" "$SCHEMA/xplane.proto" > "$OUT/$1"; }

# A GPU plane: one stream with a kernel, a copy and a memset; XLA Ops/Modules;
# CUPTI API calls and a host step.
enc gpu_streams <<'P'
planes {
  id: 1 name: "/device:GPU:0"
  lines { id: 7 name: "Stream #7(Compute)" timestamp_ns: 1700000000000000000
    events { metadata_id: 1 offset_ps: 1500700 duration_ps: 2000000
      stats { metadata_id: 1 uint64_value: 41 }
      stats { metadata_id: 2 str_value: "regs:32 static_shared:0 dynamic_shared:0 grid:80,1,1 block:256,1,1 occ_pct:50" } }
    events { metadata_id: 2 offset_ps: 9000000 duration_ps: 3000000
      stats { metadata_id: 1 int64_value: 42 }
      stats { metadata_id: 3 str_value: "kind_src:pinned kind_dst:device size:4096" } }
    events { metadata_id: 3 offset_ps: 20000000 duration_ps: 1000000
      stats { metadata_id: 4 str_value: "num_bytes:512 kind:device" } } }
  lines { id: 100 name: "XLA Ops" timestamp_ns: 1700000000000000000
    events { metadata_id: 1 offset_ps: 1500700 duration_ps: 2000000 } }
  lines { id: 101 name: "XLA Modules" timestamp_ns: 1700000000000000000
    events { metadata_id: 4 offset_ps: 0 duration_ps: 30000000 } }
  event_metadata { key: 1 value { id: 1 name: "fusion_1" } }
  event_metadata { key: 2 value { id: 2 name: "MemcpyH2D" } }
  event_metadata { key: 3 value { id: 3 name: "Memset" } }
  event_metadata { key: 4 value { id: 4 name: "jit_step(1)" } }
  stat_metadata { key: 1 value { id: 1 name: "correlation_id" } }
  stat_metadata { key: 2 value { id: 2 name: "kernel_details" } }
  stat_metadata { key: 3 value { id: 3 name: "memcpy_details" } }
  stat_metadata { key: 4 value { id: 4 name: "Memset_details" } }
  stat_metadata { key: 5 value { id: 5 name: "device_vendor" } }
  stats { metadata_id: 5 str_value: "Nvidia" }
}
planes {
  id: 2 name: "/host:CUPTI"
  lines { id: 3001 name: "3001" timestamp_ns: 1700000000000000000
    events { metadata_id: 1 offset_ps: 500000 duration_ps: 900000 stats { metadata_id: 1 int64_value: 41 } } }
  event_metadata { key: 1 value { id: 1 name: "cuLaunchKernel" } }
  stat_metadata { key: 1 value { id: 1 name: "correlation_id" } }
}
planes {
  id: 3 name: "/host:CPU"
  lines { id: 3001 name: "python3" timestamp_ns: 1700000000000000000
    events { metadata_id: 1 offset_ps: 0 duration_ps: 40000000 stats { metadata_id: 1 int64_value: 5 } } }
  event_metadata { key: 1 value { id: 1 name: "train_step" } }
  stat_metadata { key: 1 value { id: 1 name: "step_num" } }
}
hostnames: "worker-0"
P

# TPU planes, session-relative times, a Task Environment, a SparseCore plane.
enc tpu_relative <<'P'
planes {
  id: 0 name: "/device:TPU:0"
  lines { id: 1 name: "Steps" timestamp_ns: 1000 events { metadata_id: 3 offset_ps: 0 duration_ps: 50000000 } }
  lines { id: 2 name: "XLA Modules" timestamp_ns: 1000 events { metadata_id: 2 offset_ps: 0 duration_ps: 40000000 } }
  lines { id: 3 name: "XLA Ops" timestamp_ns: 1000
    events { metadata_id: 1 offset_ps: 1000000 duration_ps: 5000000 }
    events { metadata_id: 1 num_occurrences: 3 duration_ps: 5000000 } }
  event_metadata { key: 1 value { id: 1 name: "fusion.1" } }
  event_metadata { key: 2 value { id: 2 name: "jit_f(1)" } }
  event_metadata { key: 3 value { id: 3 name: "3" } }
  stat_metadata { key: 1 value { id: 1 name: "device_type_string" } }
  stats { metadata_id: 1 ref_value: 1 }
}
planes {
  id: 9 name: "/device:TPU:0 SparseCore 0"
  lines { id: 1 name: "XLA Ops" timestamp_ns: 1000 events { metadata_id: 1 offset_ps: 0 duration_ps: 1000 } }
  event_metadata { key: 1 value { id: 1 name: "sc_op" } }
}
planes {
  id: 5 name: "Task Environment"
  stat_metadata { key: 1 value { id: 1 name: "profile_start_time" } }
  stat_metadata { key: 2 value { id: 2 name: "profile_stop_time" } }
  stats { metadata_id: 1 int64_value: 1700000000000000000 }
  stats { metadata_id: 2 uint64_value: 1700000000005000000 }
}
P

# Host planes only: parses, holds nothing gpuwhy maps.
enc host_only <<'P'
planes { id: 1 name: "/host:CPU"
  lines { id: 1 name: "python3" timestamp_ns: 1700000000000000000 events { metadata_id: 9 offset_ps: 0 duration_ps: 1000 } } }
planes { id: 2 name: "/host:metadata" }
errors: "an error"
warnings: "a warning"
P
ls -l "$OUT"
