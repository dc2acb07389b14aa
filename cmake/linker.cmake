# Links with lld when GPUWHY_LLD (CMakeLists.txt) is on and the compiler
# accepts -fuse-ld=lld (lld is in scripts/install_deps.sh). Why: the test
# binaries link the whole product statically, and under ASan+UBSan at -O0 a
# test binary is about 115 MB. GNU ld took about 172 s of the 1,000 s of build-step CPU of the CI's
# sanitizer build (its .ninja_log, 2026-12-05, each link counted once), and
# 6.4 s for one such binary (analyze_command_test) against 4.7 s with gold
# and 2.2 s with lld. The linker changes no code.
if(GPUWHY_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" GPUWHY_HAVE_LLD)
  if(GPUWHY_HAVE_LLD)
    add_link_options(-fuse-ld=lld)
  endif()
endif()
