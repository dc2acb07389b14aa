// libgpuwhy_inject.so: the CUPTI injection library behind `gpuwhy record --trace`
// (docs/record-trace.md). The CUDA driver loads it through CUDA_INJECTION64_PATH
// and calls InitializeInjection() once per process during cuInit.
//
// Contract:
// - InitializeInjection() returns 1 (success) in every case, also when tracing
//   is disabled (no CUPTI, another subscriber, an unwritable folder): the host
//   application must run as if the library were absent. Nothing throws out of
//   it; a CUPTI error never ends the process. Re-entry returns 1 and does nothing.
// - libcupti is dlopen'ed (GPUWHY_CUPTI_LIBRARY, then libcupti.so.13 / libcupti.so
//   on the loader path, then $CUDA_HOME and /usr/local/cuda locations); there is
//   no link-time dependency on it.
// - Output: one trace stream file per process, GPUWHY_TRACE_DIR/trace-<pid>.gwrec
//   (default: the working directory), in the recording format; a writer thread
//   appends frames at least once a second, so a SIGKILL loses at most the last
//   second. Memory is bounded by GPUWHY_TRACE_BUFFERS x GPUWHY_TRACE_BUFFER_KB;
//   beyond it CUPTI drops records and the stream counts them.
// - GPUWHY_TRACE_KINDS: comma list of kernel, memcpy, memset, sync, event,
//   runtime, driver, overhead, nvtx (default: all; nvtx only with
//   NVTX_INJECTION64_PATH set).
// - NVTX: `record --trace` points NVTX_INJECTION64_PATH at this library too
//   (unless the user set it), and InitializeInjectionNvtx2() hands NVTX to the
//   libcupti it finds the same way, so NVTX ranges reach CUPTI's MARKER records
//   without the user naming libcupti. It returns 0 (NVTX stays a no-op) when
//   libcupti is missing or lacks the entry point; it never throws.
#pragma once

#include <cstdint>

extern "C" {
// NvtxGetExportTable: NVTX's export-table getter, passed to NVTX injections.
typedef const void* (*GpuwhyNvtxGetExportTable)(uint32_t export_table_id);
// InitializeInjectionNvtx2: the entry point NVTX calls on the library named by
// NVTX_INJECTION64_PATH (see above). Non-zero on success.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(GpuwhyNvtxGetExportTable get);
// InitializeInjection: the entry point the CUDA driver calls (see above).
__attribute__((visibility("default"))) int InitializeInjection(void);
// gpuwhy_inject_shutdown: flush and close the stream now (also run at exit);
// for test drivers that play the driver's part. Idempotent.
__attribute__((visibility("default"))) void gpuwhy_inject_shutdown(void);
}
