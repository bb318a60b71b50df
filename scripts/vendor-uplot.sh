#!/bin/sh
# Refetches uPlot (MIT, https://github.com/leeoniya/uPlot) from the npm
# registry into tuner/server/dashboard/vendor/ and checks it against the
# version and sha256 sums recorded in vendor/UPLOT. The build never runs
# this: the vendored files are committed, so builds need no network.
#   scripts/vendor-uplot.sh            # refetch the recorded version, verify
#   scripts/vendor-uplot.sh 1.6.33     # move to another version, record it
set -eu
cd "$(dirname "$0")/.."
vendor=tuner/server/dashboard/vendor
record=$vendor/UPLOT
version=${1:-$(sed -n 's/^version //p' "$record")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "uplot@$version" >/dev/null)
tarball=$work/uplot-$version.tgz
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ $# -eq 0 ] && [ "$sum" != "$(sed -n 's/^tarball-sha256 //p' "$record")" ]; then
  echo "vendor-uplot.sh: uplot-$version.tgz has sha256 $sum, not the one in $record" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"
cp "$work/package/dist/uPlot.iife.min.js" "$work/package/dist/uPlot.min.css" \
   "$vendor/"
cp "$work/package/LICENSE" "$vendor/UPLOT-LICENSE"
{
  echo "name uplot (npm), MIT, https://github.com/leeoniya/uPlot"
  echo "version $version"
  echo "tarball-sha256 $sum"
  (cd "$vendor" && sha256sum uPlot.iife.min.js uPlot.min.css UPLOT-LICENSE |
     sed 's/^\([0-9a-f]*\)  \(.*\)/file-sha256 \2 \1/')
} >"$record"
echo "uplot $version vendored in $vendor ($record)"
