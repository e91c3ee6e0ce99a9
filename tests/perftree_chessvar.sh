#!/bin/sh
# A perftree engine made of `chessvar uci` (for the tests of chessvar verify --protocol
# perftree): called as `perftree_chessvar.sh CHESSVAR DEPTH FEN [MOVES]`, it prints
# "move count" lines, a blank line and the total, as perftree expects.
chessvar=$1 depth=$2 fen=$3 moves=$4
{
    if [ -n "$moves" ]; then echo "position fen $fen moves $moves"; else echo "position fen $fen"; fi
    echo "go perft $depth"
    echo "quit"
} | "$chessvar" uci | awk '/^[^ ]+: [0-9]+$/ { sub(":", ""); print } /^Nodes searched: / { print ""; print $3 }'
