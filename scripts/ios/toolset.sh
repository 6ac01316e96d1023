# Sourced (not run) by scripts/build-ios.sh and scripts/check-demo.sh: what compiling for iOS on Linux needs,
# written once. It defines
#   ios_work, ios_triple, ios_usr   the scratch folder (IOS_WORK, default ${TMPDIR:-/tmp}/volumekit-ios, shared by
#                                   both scripts), the target triple and the toolchain's usr folder;
#   ios_find_sdk                    sets ios_sdk to an iPhoneOS SDK tree (a folder with SDKSettings.json):
#                                   IOS_SDK, else IOS_SDK_GIT's HEAD checked out once into $ios_work/iPhoneOS.sdk,
#                                   else a tree checked out there before; returns 1 when there is none;
#   ios_prepare_toolset             readies that SDK and the toolchain and sets ios_toolset to the toolset JSON
#                                   that `swift build --toolset` takes (and ios_resource_dir).
# Each step says which difference between this Linux toolchain and Xcode's it works around.
ios_work=${IOS_WORK:-${TMPDIR:-/tmp}/volumekit-ios}
ios_triple=arm64-apple-ios15.0
ios_usr=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
ios_scripts=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ios_find_sdk() {
  ios_sdk=${IOS_SDK:-}
  if [ -z "$ios_sdk" ]; then
    ios_sdk=$ios_work/iPhoneOS.sdk
    if [ -n "${IOS_SDK_GIT:-}" ] && [ -d "$IOS_SDK_GIT" ] && [ ! -f "$ios_sdk/SDKSettings.json" ]; then
      echo "ios: checking out the SDK into $ios_sdk (once)" >&2
      mkdir -p "$ios_sdk"
      git --git-dir="$IOS_SDK_GIT" --work-tree="$ios_sdk" checkout -f HEAD -- . 2>/dev/null || true
    fi
  fi
  [ -f "$ios_sdk/SDKSettings.json" ]
}

ios_prepare_toolset() {
  mkdir -p "$ios_work"
  # Some SDK copies hold usr/include/libxml as a second copy of libxml2/libxml: two module maps would then
  # define module libxml2. Xcode's SDK has a symlink there; put it back.
  if [ -d "$ios_sdk/usr/include/libxml" ] && [ ! -L "$ios_sdk/usr/include/libxml" ] &&
    [ -d "$ios_sdk/usr/include/libxml2/libxml" ]; then
    rm -rf "$ios_sdk/usr/include/libxml" && ln -s libxml2/libxml "$ios_sdk/usr/include/libxml"
  fi
  # The Linux toolchain's resource directory carries Linux module maps (Dispatch, os, CoreFoundation, Block)
  # that clash with the SDK's own; give the compiler one without them, plus the os API notes Xcode ships.
  ios_resource_dir=$ios_work/resource-dir
  if [ ! -f "$ios_resource_dir/apinotes/os.apinotes" ]; then
    mkdir -p "$ios_resource_dir/apinotes"
    for d in shims host embedded; do ln -sfn "$ios_usr/lib/swift/$d" "$ios_resource_dir/$d"; done
    ln -sfn "$(ls -d "$ios_usr"/lib/clang/* | head -1)" "$ios_resource_dir/clang"
    cp "$ios_usr/lib/swift/apinotes/"*.apinotes "$ios_resource_dir/apinotes/" 2>/dev/null || true
    cp "$ios_scripts/os.apinotes" "$ios_resource_dir/apinotes/os.apinotes"
  fi
  # SwiftPM needs a librarian and a linker for Darwin (nothing links here: library targets only).
  ios_toolset=$ios_work/toolset.json
  cat >"$ios_toolset" <<JSON
{ "schemaVersion": "1.0",
  "rootPath": "$ios_usr/bin",
  "librarian": { "path": "llvm-ar" },
  "linker": { "path": "ld64.lld" },
  "swiftCompiler": { "extraCLIOptions": ["-resource-dir", "$ios_resource_dir", "-Xcc", "-iapinotes-modules", "-Xcc", "$ios_resource_dir/apinotes", "-module-cache-path", "$ios_work/module-cache"] }
}
JSON
}
