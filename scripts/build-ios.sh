#!/usr/bin/env bash
# Compiles every library target of VolumeKit for arm64-apple-ios15.0 against a real iOS SDK, on Linux,
# with warnings as errors. It type-checks UIKit / AVFoundation / MediaPlayer / AudioToolbox / SwiftUI code
# exactly as Xcode's compiler would; it cannot link or run (no iOS linker here).
#
# usage: scripts/build-ios.sh [extra swift build args…]
# env:   IOS_SDK      an iPhoneOS SDK tree (folder with SDKSettings.json), or
#        IOS_SDK_GIT  a git directory holding such a tree at its HEAD (checked out once into $IOS_WORK)
#        IOS_WORK     scratch folder (default ${TMPDIR:-/tmp}/volumekit-ios)
#        IOS_TARGETS  library targets to build (default: all four)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ios/toolset.sh
. "$root/scripts/ios/toolset.sh"
targets=${IOS_TARGETS:-"VolumeKitCore VolumeKit VolumeKitTesting RemoteVolume"}

if ! ios_find_sdk; then
  echo "build-ios: set IOS_SDK to an iPhoneOS SDK tree (or IOS_SDK_GIT to a git directory holding one)${IOS_SDK:+; $IOS_SDK has no SDKSettings.json}" >&2
  exit 3
fi
ios_prepare_toolset

cd "$root"
for target in $targets; do
  echo "build-ios: $target for $ios_triple" >&2
  swift build --triple "$ios_triple" --sdk "$ios_sdk" --toolset "$ios_toolset" \
    --scratch-path "${IOS_BUILD_PATH:-$root/.build-ios}" --target "$target" \
    -Xswiftc -warnings-as-errors "$@"
done
echo "build-ios: all targets compiled for iOS with zero warnings" >&2
