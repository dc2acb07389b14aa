#!/usr/bin/env bash
# deb_test.sh BUILD HAVE_CUPTI: the Debian package of an existing build.
#   cpack -G DEB; control fields (Version = gpuwhy --version, Depends from
#   dpkg-shlibdeps); lintian clean but for packaging/lintian-overrides;
#   dpkg -i; `gpuwhy analyze` on the installed example from /; dpkg -r.
# Changes the machine, so it needs root and leaves it as it found it: skipped
# when gpuwhy is already installed as a package, removed again on any exit.
set -uo pipefail
build=$1 have_cupti=$2
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg -i)"
for tool in dpkg dpkg-deb dpkg-shlibdeps cpack lintian; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/install_deps.sh --test)"
done
if dpkg-query -W -f='${Status}' gpuwhy 2>/dev/null | grep -q "ok installed"; then
  skip "a gpuwhy package is already installed here; not replacing it"
fi
start_ms=$(($(date +%s%N) / 1000000))
tmp=$(mktemp -d)
installed=0
cleanup() {
  if [ $installed = 1 ]; then dpkg -r gpuwhy > "$tmp/remove.log" 2>&1 || cat "$tmp/remove.log"; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp" > "$tmp/cpack.log" 2>&1 ||
  { cat "$tmp/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/gpuwhy_*.deb 2>/dev/null)
[ -f "$deb" ] || { cat "$tmp/cpack.log"; fail "cpack made no gpuwhy_*.deb"; }
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" Package Version Architecture Section Priority Depends Suggests Installed-Size
version=$("$build/src/cli/gpuwhy" --version | awk '{print $2}')
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "package version $(dpkg-deb -f "$deb" Version) is not gpuwhy --version ($version): configured after the last build? run cmake --build first"
dpkg-deb -f "$deb" Depends | grep -q "libc6" || fail "Depends has no libc6: shlibdeps did not run"

# lintian: errors and warnings fail; info and pedantic tags are printed only.
lintian --fail-on error,warning --display-info "$deb" > "$tmp/lintian.log" 2>&1
lintian_rc=$?
cat "$tmp/lintian.log"
[ $lintian_rc -eq 0 ] || fail "lintian (exit $lintian_rc); fix, or override with a reason in packaging/lintian-overrides"

dpkg -i "$deb" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "dpkg -i"; }
installed=1
[ "$(command -v gpuwhy)" = /usr/bin/gpuwhy ] || fail "gpuwhy is not /usr/bin/gpuwhy after dpkg -i"
[ "$(/usr/bin/gpuwhy --version | awk '{print $2}')" = "$version" ] || fail "installed gpuwhy --version"
example=$(ls /usr/share/doc/gpuwhy/examples/*.json.gz | head -n 1)
out=$(cd / && /usr/bin/gpuwhy analyze "$example") || fail "gpuwhy analyze $example exited $?"
grep -q "WHY" <<< "$out" || { echo "$out"; fail "no WHY line in the report"; }
echo "installed: /usr/bin/gpuwhy analyze $example: $(grep -m1 WHY <<< "$out")"
if dpkg -L gpuwhy | grep -q '/dist-packages/gpuwhy/_gpuwhy'; then
  # `import gpuwhy` for the system python3, from a folder with no build tree near.
  why=$(cd / && env -u PYTHONPATH /usr/bin/python3 -c \
        "import sys, gpuwhy; print(gpuwhy.analyze(sys.argv[1]).top_line)" "$example") ||
    fail "/usr/bin/python3 -c 'import gpuwhy' after dpkg -i"
  grep -q "$(grep -m1 -o '\[[A-Z_]*\]' <<< "$out")" <<< "$why" || fail "import gpuwhy: WHY '$why'"
  echo "installed: python3 -c 'import gpuwhy': $why"
fi
shim=$(dpkg -L gpuwhy | grep '/torch_shim/sitecustomize.py$')
[ -n "$shim" ] || fail "record --torch's shim is not in the package"
got=$(cd "$tmp" && env -u GPUWHY_TORCH_SHIM /usr/bin/gpuwhy record --torch --no-report -o "$tmp/t" -- \
        sh -c 'echo "${PYTHONPATH%%:*}"' 2>/dev/null)
[ "$got/sitecustomize.py" = "$shim" ] || fail "installed record --torch puts '$got' on PYTHONPATH, not $(dirname "$shim")"
echo "installed: record --torch uses $shim"
if command -v py3compile >/dev/null; then
  ls "$(dirname "$shim")"/__pycache__/sitecustomize.cpython-*.pyc >/dev/null 2>&1 ||
    fail "postinst did not byte-compile the shim (py3compile)"
fi
if [ "$have_cupti" = 1 ]; then
  lib=$(dpkg -L gpuwhy | grep '/libgpuwhy_inject.so$')
  [ -n "$lib" ] || fail "libgpuwhy_inject.so not in the package"
  got=$(cd / && env -u GPUWHY_INJECT_LIBRARY -u CUDA_INJECTION64_PATH /usr/bin/gpuwhy record --trace --no-report \
          -o "$tmp/r.gwrec" -- sh -c 'echo "$CUDA_INJECTION64_PATH"' 2>/dev/null)
  [ "$got" = "$lib" ] || fail "installed record --trace injects '$got', not $lib"
  echo "installed: record --trace injects $lib"
fi

dpkg -r gpuwhy > "$tmp/remove.log" 2>&1 || { cat "$tmp/remove.log"; fail "dpkg -r"; }
installed=0
[ ! -e /usr/bin/gpuwhy ] || fail "/usr/bin/gpuwhy left after dpkg -r"
for d in /usr/share/gpuwhy /usr/lib/python3/dist-packages/gpuwhy; do
  [ ! -e "$d" ] || fail "$d left after dpkg -r (byte-code not cleaned?): $(find "$d" | head -5)"
done
echo "OK: built, linted, installed, ran and removed in $(($(date +%s%N) / 1000000 - start_ms)) ms"
