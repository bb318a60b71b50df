#!/usr/bin/env bash
# The Debian package: builds it with cpack from a built BUILD_DIR, unpacks
# it into a fresh root with `dpkg -x` (no dpkg database, no root needed),
# and checks what a user gets: tuner runs from there and finds the
# tuner-shim beside it, the completion scripts and the man page are where
# bash, zsh and man look, and Depends names the packages of the shared
# libraries they load.
#   tests/scripts/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB"; }
debs=("$work"/pkg/tuner_*.deb)
[ -f "${debs[0]}" ] || fail "no tuner_*.deb in $work/pkg"
deb=${debs[0]}
root="$work/root"
dpkg -x "$deb" "$root"

for f in usr/bin/tuner usr/bin/tuner-shim \
         usr/share/bash-completion/completions/tuner \
         usr/share/zsh/vendor-completions/_tuner \
         usr/share/man/man1/tuner.1.gz; do
  [ -f "$root/$f" ] || fail "$f is not in the package"
done
"$root/usr/bin/tuner" --version | grep -q '^tuner [0-9]' || fail "tuner --version"
shim_line=$("$root/usr/bin/tuner" version | sed -n 2p)
[ "$shim_line" = "tuner-shim: $root/usr/bin/tuner-shim" ] ||
  fail "tuner looks for its shim elsewhere: $shim_line"
"$root/usr/bin/tuner-shim" --help >/dev/null || fail "tuner-shim --help"
zcat "$root/usr/share/man/man1/tuner.1.gz" | grep -q '^\.TH TUNER 1' ||
  fail "the man page"
depends=$(dpkg-deb -f "$deb" Depends)
# The package of every shared library the two programs load (the shim is
# a static program: none).
for bin in tuner tuner-shim; do
  for path in $(ldd "$root/usr/bin/$bin" | awk '$2 == "=>" {print $3}'); do
    pkg=""
    for known in "$path" "/usr$path" "$(readlink -f "$path")"; do
      pkg=$(dpkg -S "$known" 2>/dev/null | head -1 | cut -d: -f1) || true
      [ -z "$pkg" ] || break
    done
    [ -n "$pkg" ] || fail "no package holds $path, which $bin loads"
    [[ $depends == *"$pkg"* ]] ||
      fail "Depends lacks $pkg ($path, loaded by $bin): $depends"
  done
done
[[ $depends == *libc6* ]] || fail "Depends lacks libc6: $depends"
echo "ok: $(basename "$deb"), Depends: $depends"
