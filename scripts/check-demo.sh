#!/usr/bin/env bash
# Checks the example app a volunteer opens in Xcode (Examples/VolumeKitDemo, issue 26):
#   1. parses App/Info.plist and App/VolumeKitDemo.xcodeproj/project.pbxproj with Python's plistlib (it reads
#      the XML and binary formats Xcode reads) and fails on a missing key or a dangling reference: the usage
#      descriptions and Bonjour services, one iOS app target whose Info.plist, sources and scheme exist, and the
#      local package reference to the example's package and its VolumeKitDemo library; the example's manifest
#      has the library's tools version;
#   2. compiles the app's sources (App/*.swift, with the VolumeKitDemo library's screens and VolumeKit) for
#      arm64-apple-ios15.0 as a library target, with warnings as errors, when an iOS SDK is available — it
#      cannot link or run here; with no SDK it says "skipped: no iOS SDK" and exits 0.
#
# usage: scripts/check-demo.sh [extra swift build args…]
# env:   IOS_SDK      an iPhoneOS SDK tree (folder with SDKSettings.json), or
#        IOS_SDK_GIT  a git directory holding such a tree at its HEAD (checked out once into $IOS_WORK)
#        IOS_WORK     scratch folder shared with scripts/build-ios.sh (default ${TMPDIR:-/tmp}/volumekit-ios)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
demo=$root/Examples/VolumeKitDemo
cd "$root"

echo "== example app: Xcode project and Info.plist (plistlib)"
python3 - "$root" <<'PY'
import os, plistlib, re, sys

root = sys.argv[1]
demo = os.path.join(root, "Examples", "VolumeKitDemo")
app = os.path.join(demo, "App")
problems = []

def load(path):
    try:
        with open(path, "rb") as f:
            return plistlib.load(f)
    except Exception as error:  # a missing or unparsable file is the failure this check exists for
        problems.append(f"{os.path.relpath(path, root)}: cannot be read as a property list ({error})")
        return None

# Info.plist: what the screens need from iOS.
info_path = os.path.join(app, "Info.plist")
info = load(info_path) or {}
for key in ["NSLocalNetworkUsageDescription", "NSCameraUsageDescription", "CFBundleIdentifier",
            "CFBundleExecutable", "CFBundleShortVersionString", "CFBundleVersion"]:
    value = info.get(key)
    if not isinstance(value, str) or not value.strip():
        problems.append(f"Info.plist: {key} is missing or empty")
services = info.get("NSBonjourServices")
for service in ["_mpd._tcp", "_snapcast._tcp"]:
    if not isinstance(services, list) or service not in services:
        problems.append(f"Info.plist: NSBonjourServices does not list {service}")
if "UILaunchScreen" not in info and "UILaunchStoryboardName" not in info:
    problems.append("Info.plist: no launch screen (UILaunchScreen), so the app would run letterboxed")

# The project file.
pbx_path = os.path.join(app, "VolumeKitDemo.xcodeproj", "project.pbxproj")
pbx = load(pbx_path) or {}
objects = pbx.get("objects", {})
if not isinstance(objects, dict) or not objects:
    problems.append("project.pbxproj: no objects")
    objects = {}
object_id = re.compile(r"^[0-9A-F]{24}$")

def refs(value):
    if isinstance(value, str) and object_id.match(value):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from refs(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "TargetAttributes":
                yield from refs(item)
            else:
                yield from (k for k in item if object_id.match(k))

for ident, entry in objects.items():
    if not isinstance(entry, dict) or "isa" not in entry:
        problems.append(f"project.pbxproj: object {ident} has no isa")
        continue
    for ref in refs({k: v for k, v in entry.items() if k != "isa"}):
        if ref not in objects:
            problems.append(f"project.pbxproj: {entry['isa']} {ident} refers to missing object {ref}")

project = objects.get(pbx.get("rootObject", ""), {})
if project.get("isa") != "PBXProject":
    problems.append("project.pbxproj: rootObject is not a PBXProject")

parents = {}
for ident, entry in objects.items():
    for child in entry.get("children", []) if isinstance(entry, dict) else []:
        parents[child] = ident

def file_path(ident):
    """The path of a file reference on disk, through its groups (project-relative, sourceTree <group>)."""
    parts = []
    while ident:
        entry = objects.get(ident, {})
        if entry.get("path"):
            parts.append(entry["path"])
        ident = parents.get(ident)
    return os.path.normpath(os.path.join(app, *reversed(parts)))

targets = [objects.get(t, {}) for t in project.get("targets", [])]
apps = [t for t in targets if t.get("productType") == "com.apple.product-type.application"]
if len(apps) != 1:
    problems.append(f"project.pbxproj: {len(apps)} iOS app targets, expected 1")
package_dirs = []
for ref in project.get("packageReferences", []):
    entry = objects.get(ref, {})
    if entry.get("isa") == "XCLocalSwiftPackageReference":
        package_dirs.append((ref, os.path.normpath(os.path.join(app, entry.get("relativePath", "")))))
if not any(os.path.samefile(d, demo) for _, d in package_dirs if os.path.isdir(d)):
    problems.append("project.pbxproj: no XCLocalSwiftPackageReference to Examples/VolumeKitDemo")
for target in apps:
    name = target.get("name", "?")
    products = [objects.get(p, {}) for p in target.get("packageProductDependencies", [])]
    local_refs = {ref for ref, _ in package_dirs}
    if not any(p.get("productName") == "VolumeKitDemo" and p.get("package") in local_refs for p in products):
        problems.append(f"project.pbxproj: target {name} does not link the local package's VolumeKitDemo library")
    phases = [objects.get(p, {}) for p in target.get("buildPhases", [])]
    sources = [objects.get(f, {}).get("fileRef") for ph in phases if ph.get("isa") == "PBXSourcesBuildPhase"
               for f in ph.get("files", [])]
    if not sources:
        problems.append(f"project.pbxproj: target {name} compiles no sources")
    for ref in sources:
        if not os.path.isfile(file_path(ref)):
            problems.append(f"project.pbxproj: target {name} compiles {file_path(ref)}, which does not exist")
    configs = objects.get(target.get("buildConfigurationList", ""), {}).get("buildConfigurations", [])
    if not configs:
        problems.append(f"project.pbxproj: target {name} has no build configurations")
    for config in configs:
        entry = objects.get(config, {})
        settings = entry.get("buildSettings", {})
        label = f"target {name} ({entry.get('name', '?')})"
        plist = settings.get("INFOPLIST_FILE")
        if not plist or os.path.normpath(os.path.join(app, plist)) != info_path:
            problems.append(f"project.pbxproj: {label}: INFOPLIST_FILE is not App/Info.plist")
        for key in ["PRODUCT_BUNDLE_IDENTIFIER", "IPHONEOS_DEPLOYMENT_TARGET", "SWIFT_VERSION", "CODE_SIGN_STYLE"]:
            if not settings.get(key):
                problems.append(f"project.pbxproj: {label}: {key} is missing")
        if settings.get("IPHONEOS_DEPLOYMENT_TARGET") not in (None, "15.0"):
            problems.append(f"project.pbxproj: {label}: deployment target is not iOS 15.0, the library's")

# The shared scheme names the app target.
scheme_dir = os.path.join(app, "VolumeKitDemo.xcodeproj", "xcshareddata", "xcschemes")
schemes = [f for f in os.listdir(scheme_dir)] if os.path.isdir(scheme_dir) else []
app_ids = {t for t in project.get("targets", []) if objects.get(t, {}).get("productType", "").endswith("application")}
if not any(any(i in open(os.path.join(scheme_dir, s)).read() for i in app_ids) for s in schemes):
    problems.append("xcshareddata/xcschemes: no shared scheme runs the app target")

# The example's manifest: the library's tools version, and the library the project links.
def tools_version(path):
    with open(path) as f:
        match = re.match(r"//\s*swift-tools-version:\s*([0-9.]+)", f.readline())
    return match.group(1) if match else None
mine, library = tools_version(os.path.join(demo, "Package.swift")), tools_version(os.path.join(root, "Package.swift"))
if mine != library:
    problems.append(f"Examples/VolumeKitDemo/Package.swift: swift-tools-version {mine}, the library's is {library}")
if '.library(name: "VolumeKitDemo"' not in open(os.path.join(demo, "Package.swift")).read():
    problems.append("Examples/VolumeKitDemo/Package.swift: no VolumeKitDemo library product")

for problem in problems:
    print("check-demo: " + problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-demo: Info.plist and project.pbxproj parse; {len(objects)} project objects, all references resolve")
PY

echo "== example app: its sources compiled for iOS"
# shellcheck source=ios/toolset.sh
. "$root/scripts/ios/toolset.sh"
if ! ios_find_sdk; then
  echo "check-demo: skipped: no iOS SDK (set IOS_SDK or IOS_SDK_GIT to compile the app's sources for iOS)"
  exit 0
fi
# The same preparation as scripts/build-ios.sh (shared scratch folder): the libxml symlink, a resource
# directory without the Linux module maps, the os API notes, and a toolset naming a Darwin librarian.
ios_prepare_toolset

# The app target's files as a library target of a throwaway package that depends on the example's package
# (linking is impossible here, so an executable could not be built).
pkg=$root/.build-demo-app
rm -rf "$pkg/Sources"
mkdir -p "$pkg/Sources/VolumeKitDemoApp"
cp "$demo"/App/*.swift "$pkg/Sources/VolumeKitDemoApp/"
cat >"$pkg/Package.swift" <<SWIFT
// swift-tools-version: 6.0
// Written by scripts/check-demo.sh: the example app's App/*.swift as a library target, to compile for iOS.
import PackageDescription

let package = Package(
    name: "VolumeKitDemoAppCheck",
    platforms: [.iOS(.v15)],
    dependencies: [.package(path: "$demo")],
    targets: [
        .target(
            name: "VolumeKitDemoApp",
            dependencies: [.product(name: "VolumeKitDemo", package: "VolumeKitDemo")]
        )
    ],
    swiftLanguageModes: [.v6]
)
SWIFT
swift build --package-path "$pkg" --triple "$ios_triple" --sdk "$ios_sdk" --toolset "$ios_toolset" \
  --scratch-path "${IOS_BUILD_PATH:-$root/.build-ios-demo}" --target VolumeKitDemoApp \
  -Xswiftc -warnings-as-errors "$@"
echo "check-demo: the app's sources, the VolumeKitDemo screens and VolumeKit compiled for iOS with zero warnings"
