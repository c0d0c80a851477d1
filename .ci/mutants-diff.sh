#!/usr/bin/env bash
# Mutation testing of the newest change (docs/mutants.md): the mutants of the
# lines that the newest commits changed in src/, each of which the suite must
# detect, or `.cargo/mutants.toml` must list as equivalent with its reason.
#
# Bounded so CI keeps its time: the diff grows from HEAD back, a commit that
# touched src/ at a time, while its mutants fit in MUTANTS_BOUND. If the
# newest such commit alone has more, a spread sample of MUTANTS_BOUND of its
# mutants is tested (which one turns with HEAD), and the script says so. With
# no history to diff against (a shallow clone), it tests a sample of every
# mutant in src/ instead, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

bound=${MUTANTS_BOUND:-24}
out=target/mutants-ci
mkdir -p "$out"

count() { # mutants of the diff in $1 (after the config's skips)
  cargo mutants --list --in-diff "$1" >"$out/list.txt"
  grep -c . "$out/list.txt" || true
}

# A deterministic shard index in 0..$1 that turns with HEAD.
turn() { echo $(($(git rev-parse --short=8 HEAD | sed 's/^/0x/') % $1)); }

args=()
if ! git rev-parse --verify --quiet HEAD^ >/dev/null; then
  cargo mutants --list >"$out/list.txt"
  total=$(grep -c . "$out/list.txt")
  shards=$(((total + bound - 1) / bound))
  i=$(turn "$shards")
  echo "No parent commit to diff against (a shallow clone?): testing shard $i/$shards of all $total mutants."
  args=(--shard "$i/$shards" --sharding round-robin)
else
  # Commits along main (a merge counts whole), newest first; the diff grows
  # back from HEAD while its mutants fit the bound.
  chosen="" n=0
  for c in $(git rev-list --first-parent --max-count=100 HEAD -- src/); do
    git rev-parse --verify --quiet "$c^" >/dev/null || break
    git diff "$c^" HEAD -- src/ >"$out/try.diff"
    m=$(count "$out/try.diff")
    if [ "$m" -gt "$bound" ]; then
      if [ "$n" -eq 0 ]; then
        # The newest change with mutants is over the bound on its own.
        cp "$out/try.diff" "$out/change.diff"
        shards=$(((m + bound - 1) / bound))
        i=$(turn "$shards")
        echo "The change since $(git rev-parse --short "$c^") has $m mutants, over the bound of $bound:"
        echo "testing shard $i/$shards of them (a spread sample); the rest are for a full run (docs/mutants.md)."
        args=(--in-diff "$out/change.diff" --shard "$i/$shards" --sharding round-robin)
      fi
      break
    fi
    chosen=$c n=$m
    cp "$out/try.diff" "$out/change.diff"
  done
  if [ ${#args[@]} -eq 0 ]; then
    if [ "$n" -eq 0 ]; then
      echo "No mutant in the last 100 changes to src/ (tests, docs or skipped code only)."
      exit 0
    fi
    echo "The change since $(git rev-parse --short "$chosen^") (the newest commits that touched src/): $n mutants."
    args=(--in-diff "$out/change.diff")
  fi
fi

# In place (the checkout's own target/, one build at a time): no copy of the
# tree to build from cold; so run it only on a checkout nobody edits. The
# baseline is skipped: the suite passed in an earlier step. The verdict is
# read from missed.txt: cargo-mutants' exit code 3 (a timeout) hides a 2 (a
# miss). A hung test is a detection: the nextest profile ends it after 30 s.
status=0
cargo mutants --in-place --baseline skip --timeout 300 --no-shuffle -o "$out" "${args[@]}" || status=$?
case $status in
  0 | 2 | 3) ;;
  *)
    echo "cargo mutants failed (exit $status): see $out/mutants.out/" >&2
    exit 1
    ;;
esac
missed=$out/mutants.out/missed.txt
if [ -s "$missed" ]; then
  echo "Missed mutants (the suite passed with these bugs in place):" >&2
  cat "$missed" >&2
  echo "Add a test that fails with each, or list it in .cargo/mutants.toml's exclude_re" >&2
  echo "with a one-line reason it cannot change behaviour (docs/mutants.md)." >&2
  exit 1
fi
echo "Every mutant tested was detected ($(grep -c . "$out/mutants.out/caught.txt" || true) by a failing test," \
  "$(grep -c . "$out/mutants.out/timeout.txt" || true) by a hung one; $(grep -c . "$out/mutants.out/unviable.txt" || true) did not build)."
