#!/usr/bin/env bash
# install_tree_test.sh BUILD HAVE_CUPTI: `cmake --install` into a temporary
# prefix; the installed gpuwhy runs the bundled example from /, links nothing
# from the build tree, and finds its injection library (when built) relative
# to itself.
set -uo pipefail
build=$1 have_cupti=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/x" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
gpuwhy=$tmp/x/bin/gpuwhy
[ -x "$gpuwhy" ] || fail "no bin/gpuwhy"
for f in share/man/man1/gpuwhy.1.gz share/bash-completion/completions/gpuwhy \
         share/zsh/vendor-completions/_gpuwhy share/doc/gpuwhy/copyright \
         share/doc/gpuwhy/changelog.gz share/doc/gpuwhy/README.md.gz; do
  [ -f "$tmp/x/$f" ] || fail "not installed: $f"
done
example=$(ls "$tmp"/x/share/doc/gpuwhy/examples/*.json.gz 2>/dev/null | head -n 1)
[ -n "$example" ] || fail "no bundled example under share/doc/gpuwhy/examples"

if ldd "$gpuwhy" | grep -F "$build"; then fail "the installed binary links a library from the build tree"; fi
out=$(cd / && "$gpuwhy" analyze "$example") || fail "gpuwhy analyze $example exited $?"
grep -q "WHY" <<< "$out" || { echo "$out"; fail "no WHY line in the report"; }

# record --torch puts the installed shim first on PYTHONPATH (found relative to the binary).
shim=$(realpath "$tmp/x/share/gpuwhy/torch_shim")
[ -f "$shim/sitecustomize.py" ] || fail "record --torch's shim not installed in share/gpuwhy/torch_shim"
got=$(cd "$tmp" && env -u GPUWHY_TORCH_SHIM "$gpuwhy" record --torch --no-report -o "$tmp/t" -- \
        sh -c 'echo "${PYTHONPATH%%:*}"' 2>/dev/null)
[ "$(realpath "$got")" = "$shim" ] || fail "record --torch uses '$got', not the installed $shim"
# `import gpuwhy` from the installed tree, when the module was built.
if [ -d "$tmp/x/lib/python3/dist-packages/gpuwhy" ]; then
  why=$(cd / && PYTHONPATH="$tmp/x/lib/python3/dist-packages" /usr/bin/python3 -c \
        "import sys, gpuwhy; assert gpuwhy.__file__.startswith(sys.argv[2]); print(gpuwhy.analyze(sys.argv[1]).top_line)" \
        "$example" "$tmp/x/") || fail "import gpuwhy from the installed tree"
  [ -n "$why" ] || fail "import gpuwhy: no WHY line"
fi

if [ "$have_cupti" = 1 ]; then
  lib=$(find "$tmp/x" -name libgpuwhy_inject.so)
  [ -n "$lib" ] || fail "libgpuwhy_inject.so not installed"
  lib=$(realpath "$lib")   # the lookup resolves links; so must the comparison
  case $lib in "$(realpath "$tmp")"/x/lib*/gpuwhy/libgpuwhy_inject.so) ;; *) fail "injection library at $lib, not in <libdir>/gpuwhy" ;; esac
  # record --trace hands the library it found to the command it runs.
  got=$(cd / && env -u GPUWHY_INJECT_LIBRARY -u CUDA_INJECTION64_PATH "$gpuwhy" record --trace --no-report \
          -o "$tmp/r.gwrec" -- sh -c 'echo "$CUDA_INJECTION64_PATH"' 2>/dev/null)
  [ "$got" = "$lib" ] || fail "record --trace injects '$got', not the installed $lib"
fi
echo "OK: installed to a temporary prefix; analyze ran from /${lib:+; record --trace injects $lib}"
