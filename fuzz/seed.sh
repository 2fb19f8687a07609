#!/bin/sh
# Fills fuzz/corpus/<target>/ with seeds made from the repository's small
# fixtures: every hand-written and hostile fixture, as it is and gzipped.
# The corpus directory is not committed (.gitignore); run this once before
# `cargo fuzz run`, from anywhere.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
for target in load engine; do
    dir="$here/corpus/$target"
    mkdir -p "$dir"
    for f in "$root"/fixtures/handwritten/*.json "$root"/fixtures/handwritten/*.cpuprofile "$root"/fixtures/hostile/*; do
        [ -f "$f" ] || continue
        name=$(basename "$f")
        cp "$f" "$dir/seed-$name"
        gzip -9nc "$f" > "$dir/seed-$name.gz"
    done
done
echo "seeded: $(ls "$here/corpus/load" | wc -l) files in each of $here/corpus/{load,engine}"
