#!/bin/sh
# Subscribe to the control events of touchd from the shell and print them as they come:
#   examples/socat.sh [SOCKET]
# The one-liner: send a subscription, then keep reading (socat waits for the daemon to close).
exec sh -c 'printf "%s\n" "{\"subscribe\":{\"types\":[\"control\",\"device\"]}}" | socat -t 86400 - "UNIX-CONNECT:${1:-/run/touchd/touchd.sock}"' sh "$@"
