import Foundation
import SystemShim

/// Starts `path` with `arguments`, SIGTERM, SIGHUP and SIGINT at their default actions
/// and unblocked (a test runner may block or ignore them, and children inherit that, so a
/// signal sent to the child would wait forever), output to /dev/null; returns its PID.
/// `environment` replaces the child's environment when given.
func spawnWithDefaultSignals(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t(), none = sigset_t()
    sigemptyset(&defaults)
    sigemptyset(&none)
    for signalNumber in [SIGTERM, SIGHUP, SIGINT] { sigaddset(&defaults, signalNumber) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { envp?.forEach { free($0) } }
    var pid: pid_t = 0
    let result = envp.map { posix_spawn(&pid, path, &actions, &attributes, argv, $0) } ?? posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard result == 0 else { throw CocoaError(.executableLoad) }
    return pid
}
