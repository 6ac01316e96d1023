#!/usr/bin/env bash
# The release build of the `volumekit` CLI on Linux, as it would ship and as scripts/bench.sh measures it:
# `swift build -c release` with the Swift runtime and Foundation linked statically, and four link choices
# that make the process start cheaper without giving up a position-independent executable (ASLR stays on).
# Measured on a 2-core VM (docs/remote.md, "The CLI as a whole process"): `volumekit remote set mpd://… 40`
# 549–564 page faults → 483–495 and 3.85–4.43 ms → 3.29–3.62 ms (fastest), `--version` 466–471 → 403–407.
#
#   --static-swift-stdlib            Swift runtime and Foundation inside the binary (no 6 ms of shared-object
#                                    loading; a dynamically linked Foundation "hello" starts in ~6 ms here)
#   -use-ld=lld + -z pack-relative-relocs
#                                    the toolchain's lld (Debian's gold cannot) writes the 79,000 relative
#                                    relocations as DT_RELR: a 15 KB table instead of 1.9 MB (glibc ≥ 2.36
#                                    reads it; an older one refuses to start the binary: "version
#                                    `GLIBC_ABI_DT_RELR' not found")
#   --no-export-dynamic              the static-stdlib link exports every Swift symbol (6,470 dynamic
#                                    symbols, 491 without): a smaller table to map and for dladdr to scan
#   libstdc++ linked statically      the Swift runtime's C++ library inside the binary: one shared object
#                                    fewer to map, and ~4,100 of the 4,155 symbol look-ups ld.so made are gone
#                                    (GCC's runtime library exception allows it)
#   --disable-local-rpath            no RUNPATH $ORIGIN: ld.so stops probing the binary's folder (12 failed
#                                    opens) and never loads a library from there
#
# Tried and not kept: `-z now` (page faults and times unchanged; it would give full RELRO), `--icf=all -O2`
# (unchanged), linking libgcc statically (unchanged), `--gc-sections` (already on in release), a
# `-static-pie` executable (484 faults, but glibc's getaddrinfo then needs the same glibc's NSS modules at
# run time), and no PIE at all (declined: ASLR for a program that parses network input).
#
# These are build options, not Package.swift settings: unsafeFlags would stop the package being used as a
# dependency. usage: scripts/release-build.sh [extra swift build arguments, e.g. --product volumekit]
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(-c release --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld
  -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)
# The static-stdlib link asks for `-lstdc++`; a folder holding only libstdc++.a, searched first, makes that
# the archive. Skipped (said) when the C++ toolchain has no libstdc++.a.
clang=$(dirname "$(readlink -f "$(command -v swiftc)")")/clang
archive=$("$clang" -print-file-name=libstdc++.a 2>/dev/null || true)
if [ -f "$archive" ]; then
  mkdir -p .build/static-libstdcxx
  ln -sf "$archive" .build/static-libstdcxx/libstdc++.a
  flags+=(-Xswiftc -L"$PWD/.build/static-libstdcxx")
else
  echo "release-build: no libstdc++.a (apt-get install libstdc++-12-dev); libstdc++ stays a shared object" >&2
fi
exec swift build "${flags[@]}" "$@"
