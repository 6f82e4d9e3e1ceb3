#!/bin/sh
# The C client's files call each other in one direction (src/internal.h): each file may call
# only the files after it in the order given. Reads the objects' symbols (nm): every td_* or
# touchd_client_* function an object uses must be defined in a later one.
#
#   layers.sh OBJDIR client message dispatch strict util
set -eu
dir=$1; shift
status=0 i=0
for f in "$@"; do
    i=$((i + 1))
    for sym in $(nm -u "$dir/$f.o" | awk '$2 ~ /^(td_|touchd_client_)/ { print $2 }'); do
        j=0 where=
        for g in "$@"; do
            j=$((j + 1))
            if nm --defined-only "$dir/$g.o" | awk -v s="$sym" '$3 == s { found = 1 } END { exit !found }'; then
                where=$g; break
            fi
        done
        if [ -z "$where" ]; then
            echo "layers: $f.c uses $sym, defined in none of: $*" >&2; status=1
        elif [ "$j" -le "$i" ]; then
            echo "layers: $f.c calls $sym in $where.c, which is not below it (order: $*)" >&2; status=1
        fi
    done
done
[ $status -eq 0 ] && echo "layers: $* — each file calls only those after it"
exit $status
