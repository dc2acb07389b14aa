// Hand-declared subset of the DCGM C API (no dcgm headers): the types,
// constants and function signatures gpuwhy calls through dlopen/dlsym.
//
// Contract: every layout here matches the x86-64 ABI of DCGM 3.x/4.x
// (dcgm_structs.h / dcgm_agent.h / dcgm_fields.h, checked by static_assert
// below against the sizes in the metrics brief). The fake library in
// tests/fake_nvml/fake_dcgm.cc implements exactly these signatures.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpuwhy::record::dcgm {

using dcgmHandle_t = uintptr_t;
using dcgmGpuGrp_t = uintptr_t;
using dcgmFieldGrp_t = uintptr_t;

// dcgmReturn_t: 0 is success, errors are negative.
using dcgmReturn_t = int;
inline constexpr dcgmReturn_t DCGM_ST_OK = 0;
inline constexpr dcgmReturn_t DCGM_ST_BADPARAM = -1;
inline constexpr dcgmReturn_t DCGM_ST_GENERIC_ERROR = -3;
inline constexpr dcgmReturn_t DCGM_ST_NOT_SUPPORTED = -6;
inline constexpr dcgmReturn_t DCGM_ST_INIT_ERROR = -7;
inline constexpr dcgmReturn_t DCGM_ST_UNINITIALIZED = -10;
inline constexpr dcgmReturn_t DCGM_ST_NO_DATA = -14;
inline constexpr dcgmReturn_t DCGM_ST_STALE_DATA = -15;
inline constexpr dcgmReturn_t DCGM_ST_NOT_WATCHED = -16;
inline constexpr dcgmReturn_t DCGM_ST_NO_PERMISSION = -17;
inline constexpr dcgmReturn_t DCGM_ST_CONNECTION_NOT_VALID = -21;
inline constexpr dcgmReturn_t DCGM_ST_MODULE_NOT_LOADED = -33;
inline constexpr dcgmReturn_t DCGM_ST_IN_USE = -34;
inline constexpr dcgmReturn_t DCGM_ST_PROFILING_NOT_SUPPORTED = -36;
inline constexpr dcgmReturn_t DCGM_ST_PROFILING_LIBRARY_ERROR = -37;
inline constexpr dcgmReturn_t DCGM_ST_PROFILING_MULTI_PASS = -38;
inline constexpr dcgmReturn_t DCGM_ST_PAUSED = -54;

// Versioned-struct convention: size | (version << 24).
constexpr unsigned MakeDcgmVersion(size_t size, unsigned ver) {
  return static_cast<unsigned>(size) | (ver << 24U);
}

struct dcgmConnectV2Params_v2 {
  unsigned int version;                 // kDcgmConnectV2ParamsVersion2
  unsigned int persistAfterDisconnect;  // 0: the host engine drops our watches on disconnect
  unsigned int timeoutMs;
  unsigned int addressIsUnixSocket;
};
inline constexpr unsigned kDcgmConnectV2ParamsVersion2 =
    MakeDcgmVersion(sizeof(dcgmConnectV2Params_v2), 2);

inline constexpr int kDcgmHostEnginePort = 5555;
inline constexpr dcgmGpuGrp_t kDcgmGroupAllGpus = 0x7fffffff;  // DCGM_GROUP_ALL_GPUS

// Field types (dcgmFieldValue_v1::fieldType).
inline constexpr unsigned short DCGM_FT_DOUBLE = 'd';
inline constexpr unsigned short DCGM_FT_INT64 = 'i';

// Entity groups (dcgm_field_entity_group_t).
inline constexpr unsigned DCGM_FE_GPU = 1;
inline constexpr unsigned DCGM_FE_GPU_I = 4;
inline constexpr unsigned DCGM_FE_GPU_CI = 5;

struct dcgmFieldValue_v1 {
  unsigned int version;  // kDcgmFieldValueVersion1
  unsigned short fieldId;
  unsigned short fieldType;  // DCGM_FT_*
  int status;                // DCGM_ST_* for this value
  int64_t ts;                // microseconds since 1970
  union {
    int64_t i64;
    double dbl;
    char str[256];
    char blob[4096];
  } value;
};
inline constexpr unsigned kDcgmFieldValueVersion1 = MakeDcgmVersion(sizeof(dcgmFieldValue_v1), 1);

// Blank sentinels: a value at or above these is "no value" (blank, not found,
// not supported, not permissioned = blank + 0/1/2/3).
inline constexpr double kDcgmFp64Blank = 140737488355328.0;
inline constexpr int64_t kDcgmInt64Blank = 0x7ffffffffffffff0LL;

// Profiling field ids (dcgm_fields.h; classic names, DCGM 4.6 renamed them).
inline constexpr unsigned short DCGM_FI_PROF_GR_ENGINE_ACTIVE = 1001;
inline constexpr unsigned short DCGM_FI_PROF_SM_ACTIVE = 1002;
inline constexpr unsigned short DCGM_FI_PROF_SM_OCCUPANCY = 1003;
inline constexpr unsigned short DCGM_FI_PROF_PIPE_TENSOR_ACTIVE = 1004;
inline constexpr unsigned short DCGM_FI_PROF_DRAM_ACTIVE = 1005;

static_assert(sizeof(dcgmConnectV2Params_v2) == 16);
static_assert(kDcgmConnectV2ParamsVersion2 == 0x02000010u);
static_assert(offsetof(dcgmFieldValue_v1, status) == 8);
static_assert(offsetof(dcgmFieldValue_v1, ts) == 16);
static_assert(offsetof(dcgmFieldValue_v1, value) == 24);
static_assert(sizeof(dcgmFieldValue_v1) == 4120);
static_assert(kDcgmFieldValueVersion1 == 0x01001018u);

extern "C" {
// entityGroupId is a C enum (4 bytes); returning < 0 stops the enumeration.
using dcgmFieldValueEntityEnumeration_f = int (*)(unsigned int entityGroupId, unsigned int entityId,
                                                  dcgmFieldValue_v1* values, int numValues,
                                                  void* userData);
using dcgmInit_fn = dcgmReturn_t (*)();
using dcgmShutdown_fn = dcgmReturn_t (*)();
using dcgmConnect_v2_fn = dcgmReturn_t (*)(const char*, dcgmConnectV2Params_v2*, dcgmHandle_t*);
using dcgmDisconnect_fn = dcgmReturn_t (*)(dcgmHandle_t);
using dcgmFieldGroupCreate_fn = dcgmReturn_t (*)(dcgmHandle_t, int, unsigned short*, const char*,
                                                 dcgmFieldGrp_t*);
using dcgmFieldGroupDestroy_fn = dcgmReturn_t (*)(dcgmHandle_t, dcgmFieldGrp_t);
using dcgmWatchFields_fn = dcgmReturn_t (*)(dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t, long long,
                                            double, int);
using dcgmUnwatchFields_fn = dcgmReturn_t (*)(dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t);
using dcgmUpdateAllFields_fn = dcgmReturn_t (*)(dcgmHandle_t, int);
using dcgmGetLatestValues_v2_fn = dcgmReturn_t (*)(dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t,
                                                   dcgmFieldValueEntityEnumeration_f, void*);
using dcgmErrorString_fn = const char* (*)(dcgmReturn_t);
}

}  // namespace gpuwhy::record::dcgm
