#!/usr/bin/env bash
# Builds and tests against Swift Observation's PUBLIC interface only, as Apple's SDKs ship it.
#   Linux toolchains ship Observation's .private.swiftinterface too, so `@_spi` imports and
#   SPI calls (withObservationTracking(_:willSet:), ObservationTracking) compile here and
#   nowhere an app is built with Xcode. This script copies only the toolchain's public
#   Observation.swiftmodule/<triple>.swiftinterface into a folder, puts it first on the
#   import path (-I), builds every product and the tests in a scratch path of its own
#   (.build/public-interface), runs the tests that exercise Observation, and fails on any
#   `@_spi` or underscored attribute in Sources/ and Tests/ (the exceptions are listed below),
#   and on unsafe code (pointers, `Unmanaged`, `unsafeBitCast`) outside the files that hold it.
# Usage: tools/scripts/public-interface-check.sh [--help]
set -euo pipefail
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
    sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
fi
cd "$(dirname "$0")/../.."
fail() { echo "public-interface check failed: $*" >&2; exit 1; }

# 1. No SPI and no underscored attribute in the package's sources. `@_exported` (re-exports
#    of the libc module and of the store) is the one underscored attribute kept.
spi="$(grep -rnE '@_[A-Za-z]+' Sources Tests --include='*.swift' | grep -vE '@_exported (public )?import' || true)"
[ -z "$spi" ] || fail "SPI or underscored attributes in the sources:
$spi"
private_api="$(grep -rnE '\bObservationTracking\b|withObservationTracking\([^)]*(willSet|didSet):|_installTracking|_ManagedCriticalState' \
    Sources Tests --include='*.swift' | grep -v '^[^:]*:[0-9]*: *///' || true)"
[ -z "$private_api" ] || fail "Observation's SPI used in the sources:
$private_api"

# 1b. Unsafe code only in the files whose purpose is to hold it, each a small type owning its
#     pointers with a safe API everyone else uses: libc wrappers, the lock, the registry's
#     erased values, the thread context, the event ring, SQLite's connection and statement,
#     the staged events' virtual table.
unsafe_homes='^Sources/(SystemShim/LibC|SystemShim/Lock|ObserverCore/ErasedPayload|ObserverCore/ThreadContext|ObservationJournal/EventRing|JournalStore/SQLite/SQLiteDatabase|JournalStore/SQLite/SQLiteStatement|JournalStore/StagedEvents)\.swift$'
unsafe="$(grep -rlE 'Unsafe|withUnsafe|unsafeBitCast|OpaquePointer|Unmanaged' Sources --include='*.swift' | grep -vE "$unsafe_homes" || true)"
[ -z "$unsafe" ] || fail "unsafe code outside the files that hold it (move it behind one of their safe APIs):
$unsafe"

# 2. A folder holding only the public interface of the toolchain's Observation module.
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")"
triple="$(swift -print-target-info | sed -n 's/^ *"triple": "\(.*\)",$/\1/p' | head -1)"
module_dir="$toolchain/lib/swift/linux/Observation.swiftmodule"
interface="$module_dir/$triple.swiftinterface"
[ -f "$interface" ] || fail "no public interface at $interface"
scratch=".build/public-interface"
public_dir="$scratch/sdk-like"
rm -rf "$public_dir"
mkdir -p "$public_dir/Observation.swiftmodule"
cp "$interface" "$public_dir/Observation.swiftmodule/"
if ls "$public_dir/Observation.swiftmodule" | grep -q private; then fail "a private interface was copied"; fi
flags=(--scratch-path "$scratch" -Xswiftc -I -Xswiftc "$PWD/$public_dir")

# 3. Every product and the tests, against that interface; then the tests that use Observation.
echo "building every product and the tests against $interface (public only)"
swift build "${flags[@]}" --build-tests 2>&1 | tee "$scratch/build.log" | grep -E 'error:|warning: .*SPI' || true
grep -q 'error:' "$scratch/build.log" && fail "the build against Observation's public interface failed (see $scratch/build.log)"
grep -q "will not include any SPI symbols" "$scratch/build.log" && fail "an @_spi import of Observation (see $scratch/build.log)"
for product in ObserverCore ObservationJournal ObservationJournalTesting obsreplay; do
    swift build "${flags[@]}" --product "$product" >/dev/null 2>&1 || fail "product $product does not build"
done
swift test "${flags[@]}" --skip-build --filter 'AdoptionTests|ObservationConformanceTests|DemoAppsTests' \
    >"$scratch/test.log" 2>&1 || { tail -20 "$scratch/test.log" >&2; fail "tests failed (see $scratch/test.log)"; }
grep -E '^. Test run with' "$scratch/test.log" || true
echo "public-interface check passed"
