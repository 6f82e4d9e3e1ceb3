#!/bin/sh
# The Makefile as a user runs it (issue 47, item 1): plain `make` builds the library, its
# symlinks and the build tree's touchd-client.pc (it once printed the version and built nothing),
# and `make install DESTDIR=… PREFIX=…` puts the library, the header and an installed
# touchd-client.pc under DESTDIR+PREFIX and nothing elsewhere; a program then compiles and links
# through that pkg-config file. In a build directory of its own, with the calling make's
# variables (MAKEFLAGS) dropped, so what is checked is a fresh `make`.
#
#   plainmake.sh        (make check runs it)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$here/../../VERSION")
tmp=$(mktemp -d /tmp/touchd-c-plainmake-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
fail() { echo "plainmake: $*" >&2; exit 1; }

make --no-print-directory -C "$here" O="$tmp/build" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "plain make failed"; }
for f in "lib/libtouchd-client.so.$version" lib/libtouchd-client.so.0 lib/libtouchd-client.so touchd-client.pc; do
    [ -e "$tmp/build/$f" ] || { cat "$tmp/out" >&2; fail "plain \`make\` did not build $f (in O=$tmp/build)"; }
done
[ "$(readlink "$tmp/build/lib/libtouchd-client.so.0")" = "libtouchd-client.so.$version" ] ||
    fail "libtouchd-client.so.0 points to '$(readlink "$tmp/build/lib/libtouchd-client.so.0")'"

make --no-print-directory -s -C "$here" O="$tmp/build" install DESTDIR="$tmp/dest" PREFIX=/opt/touchd-test >"$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; fail "make install DESTDIR=… PREFIX=/opt/touchd-test failed"; }
root="$tmp/dest/opt/touchd-test"
for f in "lib/libtouchd-client.so.$version" lib/libtouchd-client.so.0 lib/libtouchd-client.so \
         include/touchd/client.h lib/pkgconfig/touchd-client.pc; do
    [ -e "$root/$f" ] || fail "make install did not install $f under DESTDIR/PREFIX ($root)"
done
stray=$(cd "$tmp/dest" && find . -mindepth 1 ! -path ./opt ! -path ./opt/touchd-test ! -path './opt/touchd-test/*')
[ -z "$stray" ] || fail "make install wrote outside DESTDIR/PREFIX: $stray"
grep -qx "Version: $version" "$root/lib/pkgconfig/touchd-client.pc" || fail "the installed touchd-client.pc has no 'Version: $version'"

# The installed .pc locates itself (${pcfiledir}), so the tree under DESTDIR works as it lies.
cat >"$tmp/app.c" <<'C'
#include <touchd/client.h>
#include <stdio.h>
int main(void) {
    touchd_client *c = touchd_client_connect("/nonexistent/touchd.sock");
    if (c) return 1;
    puts("no daemon, as expected");
    return 0;
}
C
flags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --cflags --libs touchd-client) ||
    fail "pkg-config does not find the installed touchd-client.pc"
inc='' libdir=''
for w in $flags; do
    case "$w" in -I*/json-c) ;; -I*) [ -n "$inc" ] || inc=${w#-I} ;; -L*) libdir=${w#-L} ;; esac
done
if [ -z "$inc" ] || [ -z "$libdir" ] || [ "$(cd "$inc" && pwd -P)" != "$(cd "$root/include" && pwd -P)" ] ||
   [ "$(cd "$libdir" && pwd -P)" != "$(cd "$root/lib" && pwd -P)" ]; then
    fail "pkg-config gives '$flags', not the installed tree's include and lib ($root)"
fi
# shellcheck disable=SC2086  # pkg-config prints the flags as words to split
cc -o "$tmp/app" "$tmp/app.c" $flags -Wl,-rpath,"$root/lib" || fail "a program does not build against the installed library"
out=$("$tmp/app") || fail "the program built against the installed library did not run"
[ "$out" = "no daemon, as expected" ] || fail "the program printed '$out'"
echo "plainmake: plain make builds libtouchd-client.so.$version; make install DESTDIR PREFIX=/opt/touchd-test installs it with touchd-client.pc, and a program builds against it"
