#!/bin/sh
# embed.sh SYMBOL FILE: print a C file defining `const char SYMBOL[]` with
# FILE's bytes (text), so data files ship inside the plumb binary.
set -eu
sym=$1
file=$2
printf '/* generated from %s by scripts/embed.sh; do not edit */\n' "$file"
printf 'const char %s[] =\n' "$sym"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$file"
printf ';\n'
