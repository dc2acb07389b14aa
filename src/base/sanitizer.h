// kSanitized: whether this build runs under a sanitizer that slows the code
// and owns the heap (AddressSanitizer, ThreadSanitizer, MemorySanitizer),
// under GCC or clang. One definition for the code that must not tune a
// sanitizer's heap and for the tests that walk less input under one.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GPUWHY_SANITIZED_ 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define GPUWHY_SANITIZED_ 1
#endif
#endif

namespace gpuwhy {

#ifdef GPUWHY_SANITIZED_
inline constexpr bool kSanitized = true;
#undef GPUWHY_SANITIZED_
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace gpuwhy
