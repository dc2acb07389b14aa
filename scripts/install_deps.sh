#!/usr/bin/env bash
# Installs the Debian packages gpuwhy needs, skipping those already present.
# Idempotent; needs root (or sudo) only when something is missing.
#   scripts/install_deps.sh          what building and running gpuwhy needs (setup.sh)
#   scripts/install_deps.sh --test   also what only the tests need (test.sh): Chromium,
#                                    which loads the --html report headless, and
#                                    prometheus (promtool) for the shipped rules, and
#                                    lintian and zsh for the Debian package's tests
#                                    (tests/package), and Debian's PyTorch, nbconvert,
#                                    ipykernel and pandas (tests/python)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  lld                 # faster links of the statically linked test binaries (cmake/linker.cmake)
  clang libclang-rt-14-dev
  libsimdjson-dev libcli11-dev libfmt-dev
  zlib1g-dev libisal-dev libdeflate-dev libsqlite3-dev libnghttp2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libncurses-dev
  libprotobuf-dev protobuf-compiler   # JAX/XLA XSpace (*.xplane.pb) importer
  gzip isal python3 time procps
  dpkg-dev file       # cpack -G DEB: dpkg-shlibdeps computes Depends from the ELF files
  python3-dev pybind11-dev  # `import gpuwhy` for the system python3 (src/python)
)
TEST_PACKAGES=(chromium fonts-dejavu-core prometheus lintian zsh
  # real PyTorch (CPU) for `record --torch`, the notebook and the module's tables
  python3-torch python3-nbconvert python3-ipykernel python3-pandas)
if [ "${1:-}" = "--test" ]; then
  PACKAGES+=("${TEST_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install_deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
