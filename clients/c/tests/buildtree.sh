#!/bin/sh
# docs/clients.md's C flow from the build tree ("From C: libtouchd-client"; scripts/readme-check
# runs it as written there, against a daemon): after
# `scripts/c-client build`,
#     export PKG_CONFIG_PATH=$PWD/.build/c-client
#     cc -o app app.c $(pkg-config --cflags --libs touchd-client)
#     ./app
# with clients/c/examples/touchd-watch.c as app.c, in a directory of its own: it must compile,
# link, and run with the build tree's library (no install, no LD_LIBRARY_PATH).
#
#   buildtree.sh BUILD_DIR (the Makefile's O)
set -eu
O=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/touchd-c-buildtree-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp "$here/examples/touchd-watch.c" "$tmp/app.c"
cd "$tmp"
unset LD_LIBRARY_PATH
export PKG_CONFIG_PATH="$O"
# shellcheck disable=SC2046  # pkg-config prints the flags as words to split
cc -o app app.c $(pkg-config --cflags --libs touchd-client)
status=0
./app --socket "$tmp/none.sock" 2>err || status=$?
if [ "$status" -ne 2 ] || ! grep -q "touchd_client_connect: $tmp/none.sock: No such file or directory" err; then
    echo "buildtree: the program built from the build tree did not run as expected (exit $status):" >&2
    cat err >&2
    exit 1
fi
lib=$(ldd ./app | awk '$1 == "libtouchd-client.so.0" { print $3 }')
if [ "$lib" != "$O/lib/libtouchd-client.so.0" ]; then
    echo "buildtree: the program loads libtouchd-client.so.0 from '$lib', not the build tree's $O/lib" >&2
    exit 1
fi
echo "buildtree: PKG_CONFIG_PATH=$O: cc app.c \$(pkg-config --cflags --libs touchd-client) builds, runs with $lib"
