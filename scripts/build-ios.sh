#!/usr/bin/env bash
# Compiles every library target of VolumeKit for arm64-apple-ios15.0 against a real iOS SDK, on Linux,
# with warnings as errors — once as for an app and once as for an app extension (`-application-extension`,
# where everything marked `@available(iOSApplicationExtension, unavailable)` must stay out of reach). It
# type-checks UIKit / AVFoundation / MediaPlayer / AudioToolbox / SwiftUI code exactly as Xcode's compiler
# would; it cannot link or run (no iOS linker here).
#
# Then it extracts the VolumeKit module's symbol graphs (its iOS declarations, which a Linux build does not
# see) into docs/symbol-graphs/ios/, with a hash of Sources/VolumeKit beside them: scripts/build-docs.sh builds
# the module's API pages from that committed copy and says when it is stale. Commit the folder with the
# iOS sources it was made from.
#
# usage: scripts/build-ios.sh [extra swift build args…]
# env:   IOS_SDK            an iPhoneOS SDK tree (folder with SDKSettings.json), or
#        IOS_SDK_GIT        a git directory holding such a tree at its HEAD (checked out once into $IOS_WORK)
#        IOS_WORK           scratch folder (default ${TMPDIR:-/tmp}/volumekit-ios)
#        IOS_TARGETS        library targets to build (default: all four)
#        IOS_BUILD_PATH     SwiftPM scratch folder (default .build-ios; the extension build uses …-extension)
#        IOS_APP_EXTENSION  0 skips the app-extension build
#        IOS_SYMBOL_GRAPHS  0 leaves docs/symbol-graphs/ios alone
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ios/toolset.sh
. "$root/scripts/ios/toolset.sh"
targets=${IOS_TARGETS:-"VolumeKitCore VolumeKit VolumeKitTesting RemoteVolume"}
build_path=${IOS_BUILD_PATH:-$root/.build-ios}

if ! ios_find_sdk; then
  echo "build-ios: set IOS_SDK to an iPhoneOS SDK tree (or IOS_SDK_GIT to a git directory holding one)${IOS_SDK:+; $IOS_SDK has no SDKSettings.json}" >&2
  exit 3
fi
ios_prepare_toolset

cd "$root"
ios_build() { # scratch-path, then swift build arguments
  local scratch=$1
  shift
  swift build --triple "$ios_triple" --sdk "$ios_sdk" --toolset "$ios_toolset" --scratch-path "$scratch" "$@"
}
for target in $targets; do
  echo "build-ios: $target for $ios_triple" >&2
  ios_build "$build_path" --target "$target" -Xswiftc -warnings-as-errors "$@"
done
if [ "${IOS_APP_EXTENSION:-1}" != 0 ]; then
  for target in $targets; do
    echo "build-ios: $target for $ios_triple, as in an app extension (-application-extension)" >&2
    ios_build "$build_path-extension" --target "$target" -Xswiftc -warnings-as-errors \
      -Xswiftc -application-extension "$@"
  done
fi

case " $targets " in *" VolumeKit "*) graphs=${IOS_SYMBOL_GRAPHS:-1} ;; *) graphs=0 ;; esac
if [ "$graphs" != 0 ]; then
  # The same choices as scripts/build-docs.sh's Linux graphs (public symbols, no synthesized members), plus
  # extension blocks, so that DocC gives VolumeKit's extensions of SwiftUI, UIKit and VolumeKitCore types
  # pages of their own ("Extended Modules").
  modules=$(ios_build "$build_path" --show-bin-path "$@")/Modules
  extracted=$(mktemp -d)
  trap 'rm -rf "$extracted"' EXIT
  "$ios_usr/bin/swift-symbolgraph-extract" -module-name VolumeKit -target "$ios_triple" -sdk "$ios_sdk" \
    -resource-dir "$ios_resource_dir" -module-cache-path "$ios_work/module-cache" -I "$modules" \
    -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
    -output-dir "$extracted"
  python3 scripts/ios/symbol-graphs.py store "$extracted" docs/symbol-graphs/ios "$root" >&2
  if git -C "$root" status --porcelain -- docs/symbol-graphs/ios 2>/dev/null | grep -q .; then
    echo "build-ios: docs/symbol-graphs/ios changed: commit it with the iOS sources it describes" >&2
  fi
fi
if [ "${IOS_APP_EXTENSION:-1}" != 0 ]; then
  echo "build-ios: all targets compiled for iOS with zero warnings, for an app and for an app extension" >&2
else
  echo "build-ios: all targets compiled for iOS with zero warnings (app-extension build skipped)" >&2
fi
