#!/usr/bin/env bash
# API-breakage check: compares the public API of every library module with the last release point
# (scripts/api-baseline: a commit, since CI's clone may have no tags) using the toolchain's
# swift-api-digester through `swift package diagnose-api-breaking-changes`.
#
# The rule (README "Versions"): VolumeKit is 0.x, so a breaking change is allowed in the next minor
# release, but never silently. This script
#   - passes when nothing public broke;
#   - passes when something broke AND CHANGELOG.md's "## [Unreleased]" section has a "### Breaking"
#     subsection with at least one entry (the release that ships it then bumps the minor: 0.2 → 0.3);
#   - fails otherwise, listing every break, and fails when the check itself cannot run.
#
# Limits: on Linux the VolumeKit module is only the re-export of VolumeKitCore (its files are
# `#if os(iOS)`), so the iOS shells' API (VolumeButtons, VolumeHUD, MuteSwitch, …) is not compared here.
#
# usage: scripts/check-api.sh [baseline-commit]     (default: the commit in scripts/api-baseline)
# env:   API_BASELINE_DIR  where the baseline's API dump is cached (default .build/api-baseline)
# cost:  ≈ 21 s on the 2-core CI machine with a fresh baseline (the baseline's library modules are
#        built once in a scratch checkout), ≈ 2 s when the cached dump is reused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

fail() { echo "check-api: $*" >&2; exit 1; }

baseline_file=scripts/api-baseline
[ -f "$baseline_file" ] || fail "$baseline_file is missing; it names the release commit to compare with."
if [ $# -gt 0 ]; then
  commit=$1 version="commit $1"
else
  commit=$(awk '$1 == "commit" { print $2 }' "$baseline_file")
  version=$(awk '$1 == "version" { print $2 }' "$baseline_file")
fi
[ -n "$commit" ] || fail "$baseline_file has no 'commit <sha>' line."

if ! git cat-file -e "${commit}^{commit}" 2>/dev/null; then
  if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    fail "the baseline commit $commit is not in this shallow clone; run 'git fetch --unshallow' first."
  fi
  fail "the baseline commit $commit (release ${version:-?}) is not in this repository; fix $baseline_file."
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== API check against ${version:-the baseline} ($(git rev-parse --short "$commit"))"
status=0
swift package diagnose-api-breaking-changes "$commit" --baseline-dir "${API_BASELINE_DIR:-.build/api-baseline}" \
  >"$log" 2>&1 || status=$?

breaks=$(grep -E "API breakage:" "$log" | sed -E 's/^[[:space:]]*(💔[[:space:]]*)?//' || true)
if [ "$status" -eq 0 ]; then
  grep -E "breaking changes detected" "$log" || true
  echo "check-api: no breaking change since ${version:-$commit}."
  exit 0
fi
if [ -z "$breaks" ]; then
  cat "$log" >&2
  fail "swift package diagnose-api-breaking-changes failed (exit $status) without reporting a break: see above."
fi

count=$(printf '%s\n' "$breaks" | wc -l | tr -d ' ')
echo "check-api: $count breaking API change(s) since ${version:-$commit}:"
printf '%s\n' "$breaks" | sed 's/^API breakage: /  - /'

# The "## [Unreleased]" section, up to the next "## " heading, must hold "### Breaking" with an entry.
entries=$(awk '
  /^## / { inside = ($0 ~ /^## \[Unreleased\]/); breaking = 0; next }
  inside && /^### / { breaking = ($0 ~ /^### Breaking/); next }
  inside && breaking && /^[[:space:]]*[-*] / { print }
' CHANGELOG.md 2>/dev/null || true)
if [ -n "$entries" ]; then
  echo "check-api: allowed — CHANGELOG.md's [Unreleased] section names them under 'Breaking':"
  printf '%s\n' "$entries"
  echo "check-api: the release that ships this must raise the minor version (0.x → 0.(x+1).0)."
  exit 0
fi
fail "these $count breaking change(s) are not announced. Either keep the old API (deprecate it and add the new
one beside it), or add to CHANGELOG.md under '## [Unreleased]' a '### Breaking' subsection with one entry
per change saying what broke and what to write instead."
