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
work=${IOS_WORK:-${TMPDIR:-/tmp}/volumekit-ios}
triple=arm64-apple-ios15.0
targets=${IOS_TARGETS:-"VolumeKitCore VolumeKit VolumeKitTesting RemoteVolume"}
swiftc_path=$(readlink -f "$(command -v swiftc)")
usr=$(dirname "$(dirname "$swiftc_path")")
mkdir -p "$work"

sdk=${IOS_SDK:-}
if [ -z "$sdk" ]; then
  if [ -z "${IOS_SDK_GIT:-}" ] || [ ! -d "${IOS_SDK_GIT}" ]; then
    echo "build-ios: set IOS_SDK to an iPhoneOS SDK tree (or IOS_SDK_GIT to a git directory holding one)" >&2
    exit 3
  fi
  sdk=$work/iPhoneOS.sdk
  if [ ! -f "$sdk/SDKSettings.json" ]; then
    echo "build-ios: checking out the SDK into $sdk (once)" >&2
    mkdir -p "$sdk"
    git --git-dir="$IOS_SDK_GIT" --work-tree="$sdk" checkout -f HEAD -- . 2>/dev/null || true
  fi
fi
[ -f "$sdk/SDKSettings.json" ] || { echo "build-ios: $sdk is not an SDK (no SDKSettings.json)" >&2; exit 3; }

# Some SDK copies hold usr/include/libxml as a second copy of libxml2/libxml: two module maps would then
# define module libxml2. Xcode's SDK has a symlink there; put it back.
if [ -d "$sdk/usr/include/libxml" ] && [ ! -L "$sdk/usr/include/libxml" ] && [ -d "$sdk/usr/include/libxml2/libxml" ]; then
  rm -rf "$sdk/usr/include/libxml" && ln -s libxml2/libxml "$sdk/usr/include/libxml"
fi

# The Linux toolchain's resource directory carries Linux module maps (Dispatch, os, CoreFoundation, Block)
# that clash with the SDK's own; give the compiler one without them, plus the os API notes Xcode ships.
res=$work/resource-dir
if [ ! -f "$res/apinotes/os.apinotes" ]; then
  mkdir -p "$res/apinotes"
  for d in shims host embedded; do ln -sfn "$usr/lib/swift/$d" "$res/$d"; done
  ln -sfn "$(ls -d "$usr"/lib/clang/* | head -1)" "$res/clang"
  cp "$usr/lib/swift/apinotes/"*.apinotes "$res/apinotes/" 2>/dev/null || true
  cp "$root/scripts/ios/os.apinotes" "$res/apinotes/os.apinotes"
fi
cat > "$work/toolset.json" <<JSON
{ "schemaVersion": "1.0",
  "rootPath": "$usr/bin",
  "librarian": { "path": "llvm-ar" },
  "linker": { "path": "ld64.lld" },
  "swiftCompiler": { "extraCLIOptions": ["-resource-dir", "$res", "-Xcc", "-iapinotes-modules", "-Xcc", "$res/apinotes", "-module-cache-path", "$work/module-cache"] }
}
JSON

cd "$root"
for target in $targets; do
  echo "build-ios: $target for $triple" >&2
  swift build --triple "$triple" --sdk "$sdk" --toolset "$work/toolset.json" \
    --scratch-path "${IOS_BUILD_PATH:-$root/.build-ios}" --target "$target" \
    -Xswiftc -warnings-as-errors "$@"
done
echo "build-ios: all targets compiled for iOS with zero warnings" >&2
