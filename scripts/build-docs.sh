#!/usr/bin/env bash
# Builds VolumeKit's API documentation as one static website with the toolchain's own `docc`:
#   1. symbol graphs of the library modules from the debug build (`swift package dump-symbol-graph`,
#      which reuses .build, so after `swift build` this costs seconds);
#   2. one `docc convert` per module with its catalog (Sources/<Module>/<Module>.docc), in dependency order,
#      so that VolumeKit, VolumeKitTesting and RemoteVolume articles can link VolumeKitCore symbols as
#      ``/VolumeKitCore/Symbol``;
#   3. `docc merge` of the four archives into one site, transformed for static hosting.
# It FAILS on any DocC warning (a broken link, an undocumented parameter, a bad directive…), and when a
# public top-level symbol is in no topic group of its module's catalog.
#
# usage: scripts/build-docs.sh [output-dir]        (default .build/docs-site; open <dir>/documentation/)
# env:   DOCS_HOSTING_BASE_PATH  e.g. /VolumeKit when the site is served from example.com/VolumeKit/
#
# On Linux the VolumeKit module's files are all `#if os(iOS)`, so its Linux symbol graph is empty: its pages
# come from the iOS symbol graphs kept in docs/symbol-graphs/ios/ (made by scripts/build-ios.sh where an iOS
# SDK is present, with a hash of Sources/VolumeKit). When those sources have changed since, this script prints
# a NOTICE and still builds the site from the stored graphs; every public iOS declaration must have a `///`
# comment either way (checked in the sources).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

out=${1:-.build/docs-site}
work=.build/docs
modules=(VolumeKitCore VolumeKitTesting RemoteVolume VolumeKit)
ios_graphs=docs/symbol-graphs/ios
# The archives a module's catalog links into (built before it), and files kept elsewhere in the repository
# that join its catalog. (Functions rather than associative arrays: macOS's bash 3.2 has none.)
deps_of() {
  case $1 in
    VolumeKitTesting | RemoteVolume) echo VolumeKitCore ;;
    VolumeKit) echo VolumeKitCore VolumeKitTesting RemoteVolume ;;
  esac
}
assets_of() {
  case $1 in
    VolumeKit) echo docs/hud/*.svg ;;   # the HUD previews, shown by the README and the HUD article
  esac
}

if command -v docc >/dev/null; then
  docc=(docc)
elif command -v xcrun >/dev/null && xcrun --find docc >/dev/null 2>&1; then
  docc=(xcrun docc)
else
  echo "build-docs: no 'docc' (it ships with the Swift toolchain; on macOS, with Xcode)" >&2
  exit 1
fi

echo "== symbol graphs"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Extension blocks: a module's public extensions of another module's types (VolumeKitTesting's
# `VolumeKitClients.unimplemented`, `TraceHeader.simulator`) get pages, under "Extended Modules", and can be linked.
if ! swift package dump-symbol-graph --skip-synthesized-members --emit-extension-block-symbols >"$log" 2>&1; then
  cat "$log" >&2
  echo "build-docs: the package does not build, so there are no symbol graphs (see above)." >&2
  exit 1
fi
graphs=$(sed -n 's/^Files written to //p' "$log" | tail -1)
[ -d "$graphs" ] || { cat "$log" >&2; echo "build-docs: no symbol graph folder reported" >&2; exit 1; }

# The VolumeKit module's API pages come from the iOS graphs in the repository; say when they no longer match
# the iOS sources (a notice, not a failure: refreshing them needs an iOS SDK, which CI does not have).
ios_notice=
case $(python3 scripts/ios/symbol-graphs.py status "$ios_graphs" "$root") in
  current) echo "build-docs: iOS symbol graphs ($ios_graphs) match Sources/VolumeKit" ;;
  missing)
    echo "build-docs: $ios_graphs/VolumeKit.symbols.json is missing; the VolumeKit catalog links the iOS symbols it" >&2
    echo "build-docs: holds. Restore it from git, or remake it where an iOS SDK is present: scripts/build-ios.sh" >&2
    exit 1 ;;
  stale*) ios_notice="the iOS symbol graphs in $ios_graphs were made from other Sources/VolumeKit files than these, so the VolumeKit API pages may be out of date" ;;
  *) echo "build-docs: cannot read $ios_graphs (scripts/ios/symbol-graphs.py status failed)" >&2; exit 1 ;;
esac
if [ -n "$ios_notice" ]; then
  echo "build-docs: NOTICE (iOS symbol graphs): $ios_notice."
  echo "build-docs: NOTICE: where an iOS SDK is present, 'scripts/build-ios.sh' remakes them; commit $ios_graphs with the sources."
fi

rm -rf "$work" "$out"
mkdir -p "$work"
problems=0
for m in "${modules[@]}"; do
  source_catalog=Sources/$m/$m.docc
  [ -d "$source_catalog" ] || { echo "build-docs: $source_catalog is missing" >&2; exit 1; }
  # A scratch copy, so that images kept once elsewhere in the repository join the catalog (the HUD
  # previews in docs/hud/ are shown by the README and by the HUD article).
  catalog=$work/catalogs/$m.docc
  mkdir -p "$work/catalogs"
  cp -R "$source_catalog" "$catalog"
  for asset in $(assets_of "$m"); do cp "$asset" "$catalog/"; done
  mkdir -p "$work/graphs/$m"
  if [ "$m" = VolumeKit ]; then
    # The iOS declarations, from the graphs scripts/build-ios.sh extracted and the repository keeps.
    python3 scripts/ios/symbol-graphs.py expand "$ios_graphs" "$work/graphs/$m" "$root"
  else
    cp "$graphs/$m.symbols.json" "$work/graphs/$m/"
    for extension in "$graphs/$m@"*.symbols.json; do
      [ -e "$extension" ] && cp "$extension" "$work/graphs/$m/"
    done
  fi

  args=(convert "$catalog"
    --additional-symbol-graph-dir "$work/graphs/$m"
    --output-dir "$work/$m.doccarchive"
    --fallback-display-name "$m"
    --fallback-bundle-identifier "org.volumekit.$m"
    --enable-experimental-external-link-support
    --transform-for-static-hosting)
  [ -n "${DOCS_HOSTING_BASE_PATH:-}" ] && args+=(--hosting-base-path "$DOCS_HOSTING_BASE_PATH")
  for d in $(deps_of "$m"); do args+=(--dependency "$work/$d.doccarchive"); done

  echo "== docc convert $m"
  "${docc[@]}" "${args[@]}" >"$work/$m.log" 2>&1 || { cat "$work/$m.log" >&2; echo "build-docs: docc failed on $m" >&2; exit 1; }
  n=$(grep -cE "^(warning|error):" "$work/$m.log" || true)
  if [ "$n" -gt 0 ]; then
    echo "---- $m: $n DocC diagnostic(s). A path under $work/catalogs/ is a page of Sources/$m/$m.docc; a"
    echo "---- path under Sources/ is a '///' doc comment in that Swift file (write a link to another module's"
    echo "---- symbol as \`\`/VolumeKitCore/Name\`\`, and document every parameter once one is documented)."
    grep -vE "^(Finished|Generated|Output)" "$work/$m.log" | sed -E 's#(\.\./)+Sources/#Sources/#; s/^/    /'
    problems=$((problems + n))
  fi

  # Every public top-level symbol belongs to a topic group somewhere in its catalog.
  missing=$(python3 - "$work/graphs/$m/$m.symbols.json" "$catalog" "$m" <<'EOF'
import json, pathlib, re, sys
graph = json.load(open(sys.argv[1]))
names = sorted({s["pathComponents"][0] for s in graph["symbols"] if len(s["pathComponents"]) == 1})
text = "\n".join(p.read_text() for p in pathlib.Path(sys.argv[2]).rglob("*.md"))
# ``Name``, or ``Module/Name`` (how a symbol named like its module, VolumeKit's enum VolumeKit, is linked).
curated = set(re.findall(r"^\s*- ``(?:/?%s/)?([^`/]+)``" % re.escape(sys.argv[3]), text, re.M))
print(" ".join(n for n in names if n not in curated))
EOF
)
  if [ -n "$missing" ]; then
    echo "---- $m: public symbols in no topic group: $missing"
    echo "---- add each as '- \`\`Name\`\`' under a '### …' group in $source_catalog/$m.md (or in the article that owns it)."
    problems=$((problems + $(wc -w <<<"$missing")))
  fi
done

# Every public iOS declaration has a `///` comment: read from the sources, so that it holds on Linux even when
# the stored graphs are stale.
ios_undocumented=$(python3 scripts/ios/symbol-graphs.py undocumented "$root")
if [ -n "$ios_undocumented" ]; then
  echo "---- VolumeKit (iOS): public declarations without a '///' comment:"
  printf '%s\n' "$ios_undocumented" | sed 's/^/    /'
  problems=$((problems + $(wc -l <<<"$ios_undocumented")))
fi

echo "== docc merge"
archives=()
for m in "${modules[@]}"; do archives+=("$work/$m.doccarchive"); done
"${docc[@]}" merge "${archives[@]}" --synthesized-landing-page-name "VolumeKit package" \
  --synthesized-landing-page-kind Package -o "$out" >"$work/merge.log" 2>&1 \
  || { cat "$work/merge.log" >&2; echo "build-docs: docc merge failed" >&2; exit 1; }

if [ "$problems" -gt 0 ]; then
  echo "build-docs: FAILED — $problems documentation problem(s) above; the site in $out is incomplete." >&2
  exit 1
fi
echo "build-docs: 0 warnings; site in $out (start at $out/documentation/)"
[ -z "$ios_notice" ] || echo "build-docs: NOTICE repeated: $ios_notice (see the start of this log)."
